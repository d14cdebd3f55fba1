# TE's make_graphed_callables only accepts tensor args, which is what trips on PackedSeqParams.
# MCore's local CudaGraphManager wraps the module call itself and passes non-tensor kwargs
# (packed_seq_params) through on replay, so switch the implementation and keep packing.
overrides = {
    "model": {
        "cuda_graph_impl": "local",
        "cuda_graph_modules": ["attn"],     # cuda_graph_scope on mcore 0.16/0.17
        "cuda_graph_scope": None,
        "cuda_graph_warmup_steps": 3,
        "use_te_rng_tracker": True,
    },
    "rng": {"te_rng_tracker": True},
    "dataset": {
        "enable_offline_packing": True,
        "pad_to_max_length": True,
        "offline_packing_specs": {"pad_cu_seqlens": True},
    },
    "peft": {"peft": "lora"},
}
# Validate the packed path on its own: loss parity vs eager and post-capture step time.
