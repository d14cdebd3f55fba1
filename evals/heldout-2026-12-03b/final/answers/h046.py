# In[1]:
import megatron.core
megatron.core.__version__        # '0.17.0' in the production image

# In[2]:
# The 0.19 example fails here because cuda_graph_modules is the 0.18+ name of the list key;
# 0.17 still calls it cuda_graph_scope. The impl value can stay as in the example.
cfg.model.cuda_graph_impl = "full_iteration"
cfg.model.cuda_graph_scope = []
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# In[3]:
# NaN checks must stay off for a captured iteration (host sync)
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
