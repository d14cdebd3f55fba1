# In[1]:
import megatron.core
print(megatron.core.__version__)   # 0.16.1 on the cluster image

# In[2]:
from megatron.bridge.recipes.llama import llama3_8b_pretrain_config
cfg = llama3_8b_pretrain_config()

# In[3]:
# TE-scoped CUDA graphs on attention and MLP (dense GPT)
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn", "mlp"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# In[4]:
# sanity check before launching
print({k: getattr(cfg.model, k) for k in ("cuda_graph_impl", "cuda_graph_warmup_steps", "use_te_rng_tracker")})
