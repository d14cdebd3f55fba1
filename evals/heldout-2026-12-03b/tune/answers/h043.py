# In[1]:
import megatron.core
print(megatron.core.__version__)    # 0.16.1

# In[2]:
from megatron.bridge.recipes.llama import llama3_8b_pretrain_config
cfg = llama3_8b_pretrain_config()

# In[3]:
# One CUDA graph for the whole training iteration on 0.16: local impl + scope "full_iteration"
# (cuda_graph_impl="full_iteration" only exists from 0.18).
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# In[4]:
# NaN checks sync with the host; Bridge rejects the loss check with full-iteration graphs.
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
