"""Check ``domain``: a negative task's answer that gets its own (off-topic) question wrong in a
setting the domain's code refuses or ignores fails, and so does a diagnosis task's answer whose fix
does not touch the known cause; a correct one is untouched (the check only vetoes). Each rule of the
shipped task set is shown firing on one answer and silent on a correct twin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_tools.evaluation.domain import python_settings
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import AnswerRecord, load_tasks
from skill_tools.config.pysource import parse

REPO = Path(__file__).resolve().parents[2]
TASKS = load_tasks(REPO / "evals" / "evals.json")


def _domain(task: str, answer: str) -> dict:
    rec = AnswerRecord(id=task, condition="with_skill", answer=answer, line=1, agent="t")
    a = score_all(TASKS, [rec])["answers"][0]
    (check,) = [c for b in a["behaviors"] for c in b["checks"] if c["type"] == "domain"]
    return {**check, "passed_answer": a["passed"]}


DS_OK = """ZeRO-3 fits best; ds_config.json:
```json
{"bf16": {"enabled": true}, "train_micro_batch_size_per_gpu": 1,
 "zero_optimization": {"stage": 3, "overlap_comm": true, "contiguous_gradients": true,
                       "offload_optimizer": {"device": "cpu"}}}
```"""

CASES = [
    # (task, rule id expected to fire, wrong answer, correct twin)
    ("neg-deepspeed-zero", "ds-zero-key-outside-zero-optimization",
     DS_OK.replace('"zero_optimization": {"stage": 3, ', '"stage": 3, "zero_optimization": {'), DS_OK),
    ("neg-deepspeed-zero", "ds-offload-param-needs-stage-3",
     DS_OK.replace('"stage": 3', '"stage": 2, "offload_param": {"device": "cpu"}'), DS_OK),
    ("neg-deepspeed-zero", "ds-fp16-and-bf16", DS_OK.replace('{"bf16"', '{"fp16": {"enabled": true}, "bf16"'), DS_OK),
    ("neg-hf-gradient-checkpointing", "hf-trainingarguments-no-such-argument",
     "```python\nargs = TrainingArguments(output_dir='o', gradient_checkpointing=True, mixed_precision='bf16')\n```",
     "```python\nargs = TrainingArguments(output_dir='o', gradient_checkpointing=True, bf16=True)\n```"),
    ("neg-hf-gradient-checkpointing", "hf-fp16-and-bf16",
     "```python\nargs = TrainingArguments(output_dir='o', fp16=True, bf16=True, gradient_checkpointing=True)\n```",
     "```python\nargs = TrainingArguments(output_dir='o', fp16=True, gradient_checkpointing=True)\n```"),
    ("neg-hf-gradient-checkpointing", "hf-fp16-amp-on-fp16-weights",
     "```python\nm = AutoModelForCausalLM.from_pretrained('x', torch_dtype=torch.float16)\n"
     "args = TrainingArguments(output_dir='o', fp16=True, gradient_checkpointing=True)\n```",
     "```python\nm = AutoModelForCausalLM.from_pretrained('x', torch_dtype=torch.float32)\n"
     "args = TrainingArguments(output_dir='o', fp16=True, gradient_checkpointing=True)\n```"),
    ("neg-megatron-tp-sizing", "tp-beyond-one-node",
     "Run with `model.tensor_model_parallel_size=16 model.pipeline_model_parallel_size=4`.",
     "Run with `model.tensor_model_parallel_size=8 model.pipeline_model_parallel_size=4`."),
    ("neg-megatron-tp-sizing", "bridge-parallel-size-outside-model",
     "```yaml\ntrain:\n  tensor_model_parallel_size: 8\nmodel:\n  pipeline_model_parallel_size: 4\n```",
     "```yaml\nmodel:\n  tensor_model_parallel_size: 8\n  pipeline_model_parallel_size: 4\n```"),
    ("neg-megatron-tp-sizing", "pp-does-not-divide-80-layers",
     "```yaml\nmodel:\n  tensor_model_parallel_size: 8\n  pipeline_model_parallel_size: 3\n```",
     "```yaml\nmodel:\n  tensor_model_parallel_size: 8\n  pipeline_model_parallel_size: 5\n```"),
    ("neg-nccl-bandwidth", "nccl-disables-fast-transport",
     "Measure with all_reduce_perf:\n```bash\nexport NCCL_DEBUG=INFO\nexport NCCL_IB_DISABLE=1\nmpirun -np 16 ./all_reduce_perf -b 8 -e 8G -f 2 -g 1\n```",
     "Measure with all_reduce_perf:\n```bash\nexport NCCL_DEBUG=INFO\nexport NCCL_IB_HCA=mlx5\nmpirun -np 16 ./all_reduce_perf -b 8 -e 8G -f 2 -g 1\n```"),
    ("neg-nccl-bandwidth", "nccl-forces-sockets",
     "```bash\nexport NCCL_NET=Socket\nmpirun -np 16 ./all_reduce_perf -b 8 -e 8G -f 2 -g 1\n```",
     "```bash\nexport NCCL_NET=IB\nmpirun -np 16 ./all_reduce_perf -b 8 -e 8G -f 2 -g 1\n```"),
    ("neg-torch-compile-tuning", "compile-dynamic-false-for-recompiles",
     "Log with TORCH_LOGS=recompiles, then:\n```python\nmodel = torch.compile(model, dynamic=False)\n```",
     "Log with TORCH_LOGS=recompiles, then:\n```python\ntorch._dynamo.mark_dynamic(x, 1)\nmodel = torch.compile(model)\n```"),
    ("neg-torch-compile-tuning", "compile-automatic-dynamic-off",
     "Log with TORCH_LOGS=recompiles, then stop the shape guessing:\n```python\n"
     "torch._dynamo.config.automatic_dynamic_shapes = False\nmodel = torch.compile(model)\n```",
     "Log with TORCH_LOGS=recompiles, then:\n```python\ntorch._dynamo.mark_dynamic(x, 1)\nmodel = torch.compile(model)\n```"),
    ("neg-torch-compile-tuning", "compile-unknown-keyword",
     "Tell the compiler shapes vary:\n```python\nmodel = torch.compile(model, mode=\"default\", dynamic_shapes=True)\n```",
     "Tell the compiler shapes vary:\n```python\nmodel = torch.compile(model, mode=\"default\", dynamic=True)\n```"),
    ("neg-triton-kernel", "triton-jit-outside-autotune",
     "```python\n@triton.jit\n@triton.autotune(configs=[triton.Config({}, num_warps=4)], key=['n_cols'])\n"
     "def k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    pass\n```",
     "```python\n@triton.autotune(configs=[triton.Config({}, num_warps=4)], key=['n_cols'])\n@triton.jit\n"
     "def k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    pass\n```"),
    ("neg-triton-kernel", "triton-num-warps-not-power-of-two",
     "```python\n@triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 1024}, num_warps=6)], key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n```",
     "```python\n@triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 1024}, num_warps=8)], key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n```"),
    ("neg-triton-kernel", "triton-block-size-not-power-of-two",
     "Use one program per row and set `BLOCK_SIZE = n_cols` so no lane is masked.",
     "Use one program per row and set `BLOCK_SIZE = triton.next_power_of_2(n_cols)`, masking the tail."),
    ("neg-triton-kernel", "triton-autotune-without-key",
     "```python\n@triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 1024}, num_warps=4)])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n```",
     "```python\n@triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 1024}, num_warps=4)], key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n```"),
    ("neg-triton-kernel", "triton-autotuned-meta-passed-at-launch",  # configs it cannot follow: any kernel's
     "```python\nfrom tuning import BASE_CONFIGS\n@triton.autotune(configs=BASE_CONFIGS, key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n\n"
     "extra = [triton.Config({'BLOCK_SIZE': 2048})]\nk[(rows,)](x, n_cols, BLOCK_SIZE=1024)\n```",
     "```python\nfrom tuning import BASE_CONFIGS\n@triton.autotune(configs=BASE_CONFIGS, key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n\n"
     "extra = [triton.Config({'BLOCK_SIZE': 2048})]\nk[(rows,)](x, n_cols)\n```"),
    ("neg-triton-kernel", "triton-autotuned-meta-passed-at-launch-same-kernel",
     "```python\n@triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 1024}, num_warps=4)], key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n\nk[(rows,)](x, n_cols, BLOCK_SIZE=1024)\n```",
     "```python\n@triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 1024}, num_warps=4)], key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n\nk[(rows,)](x, n_cols)\n```"),
    # a one-pass row softmax (one block per row, no loop over the row) with an autotuned BLOCK_SIZE
    ("neg-triton-kernel", "triton-autotuned-row-block",
     "```python\n@triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 256}, num_warps=4), "
     "triton.Config({'BLOCK_SIZE': 1024}, num_warps=8)], key=['n_cols'])\n@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    cols = tl.arange(0, BLOCK_SIZE)\n```",
     "```python\n@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in (4, 8)], key=['n_cols'])\n"
     "@triton.jit\ndef k(x, n_cols, BLOCK_SIZE: tl.constexpr):\n    cols = tl.arange(0, BLOCK_SIZE)\n\n"
     "k[(rows,)](x, n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols))\n```"),
    ("neg-hf-gradient-checkpointing", "hf-fp16-and-bf16",
     "```python\nargs = TrainingArguments(output_dir='o', bf16=torch.cuda.is_bf16_supported(), fp16=True)\n```",
     "```python\nok = torch.cuda.is_bf16_supported()\nargs = TrainingArguments(output_dir='o', bf16=ok, fp16=not ok)\n```"),
    # the same pair in a TrainingArguments YAML file (HfArgumentParser.parse_yaml_file)
    ("neg-hf-gradient-checkpointing", "hf-fp16-and-bf16",
     "```yaml\noutput_dir: out\ngradient_checkpointing: true\nbf16: true\nfp16: true   # fallback for V100\n```",
     "```yaml\noutput_dir: out\ngradient_checkpointing: true\nbf16: true\nfp16: false\n```"),
    # BLOCK_SIZE from a helper that rounds up to the warp size: not a power of two (1100 -> 1120)
    ("neg-triton-kernel", "triton-block-size-is-row-length",
     "One program per row covers the whole row; the power of two only matters for tl.dot:\n```python\n"
     "BLOCK_SIZE = n_cols\nsoftmax_kernel[(rows,)](y, x, n_cols, BLOCK_SIZE=BLOCK_SIZE)\n```",
     "```python\nBLOCK_SIZE = triton.next_power_of_2(n_cols)\nsoftmax_kernel[(rows,)](y, x, n_cols, BLOCK_SIZE=BLOCK_SIZE)\n```"),
    ("neg-triton-kernel", "triton-block-size-rounded-to-multiple",
     "Round up to the warp size, not a power of two:\n```python\ndef _block(n):\n    return ((n + 31) // 32) * 32\n\n"
     "softmax_kernel[(rows,)](y, x, n_cols, BLOCK_SIZE=_block(n_cols))\n```",
     "```python\ndef _block(n):\n    return triton.next_power_of_2(n)\n\n"
     "softmax_kernel[(rows,)](y, x, n_cols, BLOCK_SIZE=_block(n_cols))\n```"),
]

STALE_OK = ("The AccumulateGrad nodes were created on the legacy stream when DDP registered its hooks. Use a "
            "PyTorch build with `set_override_stale_capture_stream`, or build DDP on the capture stream:\n\n"
            "```python\nwith torch.cuda.stream(get_shared_capture_stream()):\n    model = build_model()\n```\n")
TEARDOWN_OK = ("The captured graphs still hold NCCL resources, so destroy_process_group waits forever. Upgrade Bridge "
               "(it calls delete_cuda_graphs() before teardown) or delete the graphs yourself first.\n")
NAN_OK = ("Confirm with an A/B at the same seed (graphs off vs on), then narrow the scope and upgrade TE/MCore:\n\n"
          "```yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n```\n")
RL_OK = ("Generation never captured: the managers are restored only if they existed at init. Upgrade NeMo-RL and "
         "keep\n\n```yaml\npolicy:\n  generation:\n    mcore_generation_config:\n      cuda_graph_impl: local\n"
         "      inference_cuda_graph_scope: block\n```\n")
PARITY_OK = ("Not broken: eager pads to round_up_tokens, the graph replays its bucket, and bf16 rounding flips a "
             "near-tie. Compare against eager padded to the same shapes; keep `inference_cuda_graph_scope=\"block\"`.\n")
CASES += [
    # diagnosis tasks: a fix that does not touch the known cause
    ("capture-fails-stale-stream", "stale-stream-overlap-off",
     STALE_OK + "\nAlso set `ddp.overlap_grad_reduce=False`; the overlap streams are what trip the capture.\n", STALE_OK),
    ("capture-fails-stale-stream", "stale-stream-te-impl",
     "Per-layer graphs sidestep it: set `cuda_graph_impl=\"transformer_engine\"` with modules [attn].\n", STALE_OK),
    ("capture-fails-stale-stream", "stale-stream-fresh-stream",
     "Build DDP on its own side stream:\n\n```python\ns = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n"
     "    model = build_model()\n```\n", STALE_OK),
    ("capture-fails-stale-stream", "stale-stream-no-warmup",
     "Run no eager step before capture:\n\n    --cuda-graph-warmup-steps 0\n\n"
     "Then the first backward already runs on the capture stream.\n", STALE_OK + "\nKeep `cuda_graph_warmup_steps=3`.\n"),
    ("capture-fails-stale-stream", "stale-stream-nccl-env",
     "NCCL's recordStream keeps the grads on the default stream. Export this before the launch:\n\n"
     "```bash\nexport TORCH_NCCL_AVOID_RECORD_STREAMS=1\n```\n", STALE_OK),
    ("capture-fails-stale-stream", "stale-stream-more-warmup",
     "Lazy set-up runs during capture. Give it more eager steps first:\n\n```python\n"
     "cfg.model.cuda_graph_warmup_steps = 10\n```\n", STALE_OK + "\nKeep `cuda_graph_warmup_steps=3`.\n"),
    # more warm-up is still no fix when the answer names the PyTorch override as optional
    ("capture-fails-stale-stream", "stale-stream-more-warmup",
     "Drain the stream and add warm-up:\n\n```python\ncfg.model.cuda_graph_warmup_steps = 5\n```\n\nOptional: a PyTorch "
     "with set_override_stale_capture_stream.\n", STALE_OK),
    ("expandable-segments-te-assert", "expandable-drop-segments",
     "For TE graphs drop expandable segments:\n\n```bash\nunset PYTORCH_CUDA_ALLOC_CONF\n"
     "export PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:0.8\n```\n",
     "Keep them and add the register switch:\n\n```bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
     "export NCCL_GRAPH_REGISTER=0\n```\n"),
    ("diagnose-teardown-hang", "teardown-nccl-watchdog-env",
     "The graphs hold NCCL resources at teardown. Fix: `export TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=60` so the watchdog "
     "kills the hung rank.\n", TEARDOWN_OK),
    # offered beside the real fix (graphs deleted before destroy_process_group), the watchdog is a belt and braces
    ("diagnose-teardown-hang", "teardown-destroy-before-delete",
     TEARDOWN_OK + "\n```python\ntorch.distributed.destroy_process_group()\nhelper.delete_cuda_graphs()\n```\n",
     TEARDOWN_OK + "\n```python\nhelper.delete_cuda_graphs()\ngc.collect()\ntorch.distributed.destroy_process_group()\n```\n"
     "And `export TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=600` so a hang does not burn the allocation.\n"),
    ("diagnose-nan-after-graphs", "nan-full-iteration-dropless-moe",
     NAN_OK.replace("transformer_engine\n  cuda_graph_modules: [attn]", "full_iteration\n  cuda_graph_modules: []"), NAN_OK),
    ("rl-colocated-eager-decode", "colocated-scope-change", RL_OK.replace("scope: block", "scope: layer"), RL_OK),
    ("rl-colocated-eager-decode", "rl-persist-without-policy-graphs",
     RL_OK.replace("policy:\n", "policy:\n  megatron_cfg:\n    cuda_graph_impl: none\n    rl_persist_cuda_graphs: true\n"),
     RL_OK.replace("policy:\n", "policy:\n  megatron_cfg:\n    cuda_graph_impl: none\n    rl_persist_cuda_graphs: false\n")),
    # DDP keeps the AccumulateGrad nodes of the stream it was built on (training.py l.1870-1879 @core_v0.19.0);
    # a context manager or a builder the program defines around the capture stream counts as that stream
    ("capture-fails-stale-stream", "stale-stream-ddp-outside-stream",
     STALE_OK.replace("    model = build_model()\n", "    pass\n") +
     "```python\nmodel = DistributedDataParallel(cfg, ddp_cfg, build_model())\n"
     "with torch.cuda.stream(get_shared_capture_stream()):\n    for _ in range(n):\n        step(model)\n```\n",
     STALE_OK + "```python\n@contextlib.contextmanager\ndef on_capture_stream():\n"
     "    with torch.cuda.stream(get_shared_capture_stream()):\n        yield\n\n"
     "def build():\n    return DistributedDataParallel(cfg, ddp_cfg, build_model())\n\n"
     "with on_capture_stream():\n    model = build()\n    for _ in range(n):\n        step(model)\n```\n"),
    # the stream context held in a variable first, then entered ("ctx = torch.cuda.stream(s)", "with ctx:")
    ("capture-fails-stale-stream", "stale-stream-ddp-outside-stream",
     STALE_OK.replace("    model = build_model()\n", "    pass\n") +
     "```python\nctx = torch.cuda.stream(get_shared_capture_stream())\n"
     "model = DistributedDataParallel(cfg, ddp_cfg, build_model())\nwith ctx:\n    for _ in range(n):\n        step(model)\n```\n",
     STALE_OK.replace("    model = build_model()\n", "    pass\n") +
     "```python\nctx = torch.cuda.stream(get_shared_capture_stream())\n"
     "with ctx:\n    model = DistributedDataParallel(cfg, ddp_cfg, build_model())\n    for _ in range(n):\n        step(model)\n```\n"),
    # TE graphs allow inference scope none only (cuda_graph_config.py l.17-22 @core_v0.19.0)
    ("rl-colocated-eager-decode", "colocated-policy-te-graphs",
     RL_OK.replace("policy:\n", "policy:\n  megatron_cfg:\n    cuda_graph_impl: transformer_engine\n"),
     RL_OK.replace("policy:\n", "policy:\n  megatron_cfg:\n    cuda_graph_impl: local\n")),
    # Megatron-LM refuses KV-cache offload unless graphs persist (arguments.py l.499-501 @core_v0.19.0)
    ("rl-colocated-eager-decode", "rl-offload-without-persist",
     RL_OK + "\nTo free the KV cache between rollouts: `--rl-kv-cache-management-mode offload "
     "--no-rl-persist-cuda-graphs`.\n",
     RL_OK + "\nTo free the KV cache between rollouts: `--rl-kv-cache-management-mode offload "
     "--rl-persist-cuda-graphs`.\n"),
    ("inference-parity-padded-shapes", "parity-scope-change",
     "Block replay is stale here: switch to `inference_cuda_graph_scope=\"layer\"`.\n", PARITY_OK),
    # a decision the question's numbers rule out, and a measurement setting that breaks the capture
    ("neg-deepspeed-zero", "ds-plain-zero2-7b-40gb",
     DS_OK.replace('"stage": 3', '"stage": 2').replace(',\n                       "offload_optimizer": {"device": "cpu"}', ''),
     DS_OK.replace('"stage": 3', '"stage": 2')),
    ("diagnose-nan-after-graphs", "nan-more-warmup",
     NAN_OK.replace("cuda_graph_modules: [attn]", "cuda_graph_modules: [attn]\n  cuda_graph_warmup_steps: 50"), NAN_OK),
    ("neg-fsdp-sharding", "fsdp2-root-only",
     "```python\nfrom torch.distributed.fsdp import fully_shard\nfully_shard(model, mesh=mesh, reshard_after_forward=True)\n```\n",
     "```python\nfrom torch.distributed.fsdp import fully_shard\nfor block in model.layers:\n"
     "    fully_shard(block, mesh=mesh, reshard_after_forward=True)\nfully_shard(model, mesh=mesh)\n```\n"),
    ("neg-megatron-tp-sizing", "vpp-does-not-split-stages",
     "Run with `model.tensor_model_parallel_size=4 model.pipeline_model_parallel_size=4 "
     "model.virtual_pipeline_model_parallel_size=3`.",
     "Run with `model.tensor_model_parallel_size=4 model.pipeline_model_parallel_size=4 "
     "model.virtual_pipeline_model_parallel_size=5`."),
    ("neg-nccl-bandwidth", "nccl-gdr-level-loc",
     "Measure with nccl-tests' all_reduce_perf, then `export NCCL_NET_GDR_LEVEL=LOC` so GPUDirect RDMA is used.",
     "Measure with nccl-tests' all_reduce_perf, then `export NCCL_NET_GDR_LEVEL=PHB` if the NIC sits behind a host bridge."),
    ("neg-hf-gradient-checkpointing", "hf-half-precision-backend-not-a-dtype",
     "```python\nargs = TrainingArguments(output_dir='o', half_precision_backend='bf16', gradient_checkpointing=True)\n```",
     "```python\nargs = TrainingArguments(output_dir='o', bf16=True, half_precision_backend='auto', gradient_checkpointing=True)\n```"),
    ("neg-hf-gradient-checkpointing", "hf-compile-cudagraphs-for-memory",
     "```python\nargs = TrainingArguments(output_dir='o', bf16=True, gradient_checkpointing=True, torch_compile=True,\n"
     "                         torch_compile_mode='reduce-overhead')  # lower peak memory\n```",
     "```python\nargs = TrainingArguments(output_dir='o', bf16=True, gradient_checkpointing=True, torch_compile=True)\n```"),
    ("neg-hf-gradient-checkpointing", "hf-no-such-model-method",
     "```python\nmodel.enable_gradient_checkpointing()\nargs = TrainingArguments(output_dir='o', bf16=True)\n```",
     "```python\nmodel.gradient_checkpointing_enable()\nargs = TrainingArguments(output_dir='o', bf16=True)\n```"),
    ("neg-fsdp-sharding", "fsdp2-root-before-blocks",
     "```python\nfully_shard(model, mesh=mesh)\nfor block in model.layers:\n    fully_shard(block, mesh=mesh)\n```\n",
     "```python\nfor block in model.layers:\n    fully_shard(block, mesh=mesh)\nfully_shard(model, mesh=mesh)\n```\n"),
    ("run-helper-bench", "bench-warmup-zero",
     "Run `skill-tools bench --config c.yaml --json` and set `cuda_graph_warmup_steps: 0` so every timed step is a replay.\n",
     "Run `skill-tools bench --config c.yaml --json`; keep `cuda_graph_warmup_steps: 3` and time replay steps only.\n"),
]


@pytest.mark.parametrize("task,rule,wrong,correct", CASES, ids=[c[1] for c in CASES])
def test_each_rule_fires_on_its_mistake_and_not_on_the_correct_twin(task, rule, wrong, correct):
    bad = _domain(task, wrong)
    assert bad["score"] == 0.0 and bad["fatal"] and f"[{rule}]" in bad["explanation"], bad
    assert not bad["passed_answer"]
    good = _domain(task, correct)
    assert good["score"] is None and "not applicable" in good["explanation"], good


def test_every_shipped_rule_has_a_case():
    shipped = {r["id"] for t in json.loads((REPO / "evals" / "evals.json").read_text())
               for b in t["rubric"]["behaviors"] for c in b["checks"] if c["type"] == "domain" for r in c["rules"]}
    assert shipped == {c[1] for c in CASES}


def test_a_key_named_in_a_sentence_is_not_placed_by_it():
    # "`offload_optimizer: cpu`" in a table cell names the key; it does not put it at the top level
    answer = ("| ZeRO-2 + `offload_optimizer: cpu` | 17.5 GB |\n\nAdd `offload_optimizer` (and then `offload_param`) to CPU.\n\n"
              + DS_OK)
    assert _domain("neg-deepspeed-zero", answer)["score"] is None


def test_a_rejected_span_is_not_read():
    answer = "Use a fixed `BLOCK_SIZE = 1024` for rows up to 1024 columns. Do not set `BLOCK_SIZE = n_cols`."
    assert _domain("neg-triton-kernel", answer)["score"] is None


def test_python_is_read_without_running_it():
    src = ("cfg = {'zero_optimization': {'stage': 3}}\ncfg['zero_optimization']['offload_param'] = {'device': 'cpu'}\n"
           "k[(n,)](x, BLOCK_SIZE=n_cols)\nimport os; os.system('rm -rf /')\n")
    got = python_settings(parse(src), src)
    assert got["py:=cfg.zero_optimization.stage"] == 3
    assert got["py:=cfg.zero_optimization.offload_param.device"] == "cpu"
    assert got["py:k[].BLOCK_SIZE"] == "n_cols" and got["py:system.#0"] == "rm -rf /"


def test_code_that_is_not_python_as_a_whole_is_skipped():
    answer = "```python\nargs = TrainingArguments(\n    mixed_precision='bf16',  # ...\n```"  # unclosed call
    assert _domain("neg-hf-gradient-checkpointing", answer)["score"] is None


def test_transformers_5_activation_checkpointing_argument_is_accepted():
    # transformers 5 names the switch activation_checkpointing (gradient_checkpointing is its deprecated alias)
    answer = "```python\nargs = TrainingArguments(output_dir='o', activation_checkpointing=True, bf16=True)\n```"
    assert _domain("neg-hf-gradient-checkpointing", answer)["score"] is None


def test_a_size_held_in_a_variable_is_not_outside_the_allowed_values():
    answer = "```python\ntp, pp = 4, 4\ncfg.model.tensor_model_parallel_size = tp\ncfg.model.pipeline_model_parallel_size = pp\n```"
    assert _domain("neg-megatron-tp-sizing", answer)["score"] is None


def test_order_follows_calls_into_the_programs_own_helpers():
    helper = "def _drop_graphs(helper):\n    helper.delete_cuda_graphs()\n    gc.collect()\n\n\n"
    wrong = f"```python\n{helper}def shutdown(helper):\n    torch.distributed.destroy_process_group()\n    _drop_graphs(helper)\n```\n"
    right = f"```python\n{helper}def shutdown(helper):\n    _drop_graphs(helper)\n    torch.distributed.destroy_process_group()\n```\n"
    bad = _domain("diagnose-teardown-hang", TEARDOWN_OK + wrong)
    assert bad["score"] == 0.0 and "[teardown-destroy-before-delete]" in bad["explanation"]
    assert _domain("diagnose-teardown-hang", TEARDOWN_OK + right)["score"] is None


def test_an_indented_call_under_a_plain_text_list_item_is_read():
    from skill_tools.evaluation.domain import indented_code_lines

    text = "1. Turn off dynamic shape tracking:\n     model = torch.compile(model, dynamic=False)\n"
    assert indented_code_lines(text) == ["model = torch.compile(model, dynamic=False)"]
    assert indented_code_lines("Never do this:\n     model = torch.compile(model, dynamic=False)\n") == []
    assert indented_code_lines("```\n     model = torch.compile(model)\n```\n") == []
