"""Full-iteration CUDA graph for a Megatron Bridge run on megatron-core 0.16.1.

On 0.16/0.17 there is no ``cuda_graph_impl="full_iteration"`` (megatron-core only accepts
"none", "local" and "transformer_engine" there) and no ``cuda_graph_modules``. One graph for the
whole forward+backward is spelled as the *local* impl with the single scope ``full_iteration``.
The optimizer step stays eager.

Call ``enable_full_iteration_graph(cfg)`` on the ConfigContainer your recipe returns, before
``pretrain(cfg, forward_step)``.
"""

from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer) -> ConfigContainer:
    # --- the graph itself (0.16/0.17 spelling) ---------------------------------------------
    cfg.model.cuda_graph_impl = "local"
    cfg.model.cuda_graph_scope = ["full_iteration"]  # alone in the list
    cfg.model.cuda_graph_warmup_steps = 3            # capture after 3 eager steps, not at step 0

    # --- graph-safe RNG: Bridge asserts the TE tracker for any CUDA graph --------------------
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- no host syncs inside the captured step -----------------------------------------------
    # Bridge's ConfigContainer.validate() asserts this one for local + full_iteration:
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    # and the gradient-side NaN check syncs the same way:
    cfg.ddp.check_for_nan_in_grad = False

    # --- things that must stay static / off -------------------------------------------------
    # fixed cfg.model.seq_length and cfg.train.micro_batch_size; no unpadded sequence packing;
    # CPU offloading is refused with any graph on 0.16; dropless MoE cannot be captured whole.
    return cfg


# Same thing as Hydra-style overrides for a Bridge launch script:
#   model.cuda_graph_impl=local
#   model.cuda_graph_scope=[full_iteration]
#   model.cuda_graph_warmup_steps=3
#   model.use_te_rng_tracker=True
#   rng.te_rng_tracker=True
#   rerun_state_machine.check_for_nan_in_loss=False
#   ddp.check_for_nan_in_grad=False
#
# Check before launching:   skill-tools validate --mcore-version 0.16.1 my_config.yaml
# Proof it captured (log):  "Capture CUDA graph for training!!!"
#                           "CUDA graph capture done for training!!!"
# Then compare steady-state step time and loss against an eager run (skill-tools logs eager.log graph.log).
