# In[1]:
from recipes import dense_fullgraph, moe_te_graphs
cfg1 = dense_fullgraph.build()
cfg2 = moe_te_graphs.build()

# In[2]:
# Recipe 1: enable_cuda_graph (deprecated == local) + full_iteration scope  ->  0.19 full_iteration impl
cfg1.model.enable_cuda_graph = False
cfg1.model.cuda_graph_impl = "full_iteration"
cfg1.model.cuda_graph_modules = []
cfg1.model.cuda_graph_scope = None
cfg1.rerun_state_machine.check_for_nan_in_loss = False
cfg1.ddp.check_for_nan_in_grad = False

# In[3]:
# Recipe 2: rename the key. Keep the old one too so the same recipe still loads on our 0.16 image
# (0.19 just prints a deprecation warning for cuda_graph_scope).
cfg2.model.cuda_graph_impl = "transformer_engine"
cfg2.model.cuda_graph_modules = ["attn", "moe_router"]
cfg2.model.cuda_graph_scope = ["attn", "moe_router"]
