# recipe 1 after the 0.19 upgrade
cfg.model.enable_cuda_graph = True            # keep: still honoured by 0.19
cfg.model.cuda_graph_impl = "full_iteration"  # new: whole fwd+bwd graph implementation
cfg.model.cuda_graph_modules = []
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False

# recipe 2 after the 0.19 upgrade
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn", "moe_router"]   # renamed from cuda_graph_scope
