# tests/conftest.py
"""Shared fixtures for the full-iteration CUDA-graph smoke test.

Context: the run died with
    AssertionError: check_for_nan_in_loss must be disabled when using full_iteration CUDA graph.
    Set rerun_state_machine.check_for_nan_in_loss=False.

The NaN checks sync to the host (they read the loss/grad value and may trigger a rerun),
which can't be captured inside a whole-iteration CUDA graph. Both checks must be off:
  * rerun_state_machine.check_for_nan_in_loss  (loss side, the assert above)
  * ddp.check_for_nan_in_grad                  (grad side, the Bridge recipes default it to True)

The fixture also moves the graph settings to the dedicated whole-iteration implementation
instead of the older local+scope combination. cuda_graph_scope must be empty for it.
Target stack: megatron-core 0.16 + matching Megatron Bridge.
"""
import pytest

from megatron.bridge.recipes.llama import llama3_8b_pretrain_config


@pytest.fixture
def full_iteration_graph_cfg(tmp_path):
    cfg = llama3_8b_pretrain_config()

    # --- whole-iteration CUDA graph --------------------------------------------------
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = []           # must stay empty for the full_iteration impl
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- NaN checks off (host syncs can't be captured) -------------------------------
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # --- keep the smoke test short and static-shaped ---------------------------------
    cfg.train.train_iters = 20
    cfg.train.micro_batch_size = 1
    cfg.checkpoint.save = str(tmp_path / "ckpt")
    cfg.logger.log_interval = 1
    return cfg


@pytest.fixture
def assert_graph_config_valid():
    def _check(cfg):
        assert cfg.rerun_state_machine.check_for_nan_in_loss is False
        assert cfg.ddp.check_for_nan_in_grad is False
        assert cfg.model.cuda_graph_impl == "full_iteration"
        cfg.validate()                          # runs Bridge + TransformerConfig checks
    return _check
