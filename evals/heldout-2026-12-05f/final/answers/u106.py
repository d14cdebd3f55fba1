"""moe_cuda_graph_ab.py: Metaflow flow that A/Bs CUDA graphs on Qwen3-30B-A3B (Megatron Bridge).

Setup: dropless MoE, alltoall token dispatcher, EP=8, megatron-core 0.19.

Decision encoded below:
  * Do NOT graph the whole MoE layer and do NOT use the `moe` module: dropless routing gives a
    different token count per expert every step, and the alltoall dispatcher copies those counts
    to the host and synchronises, which cannot be captured. `moe` is for drop-and-pad MoE only.
  * Capture the static pieces with Transformer Engine per-layer graphs instead. Never combine
    `moe` with `moe_router`; `moe_preprocess` requires `moe_router`.

    python moe_cuda_graph_ab.py run --iters 40
"""

from metaflow import FlowSpec, Parameter, resources, step

RECIPE = "qwen3_30b_a3b_pretrain_config"

COMMON = [
    "model.moe_token_dispatcher_type=alltoall",
    "model.expert_model_parallel_size=8",
    "train.micro_batch_size=1",           # static shapes
    "dataset.seq_length=4096",            # static shapes
    "rng.seed=1234",
    # recipe recomputes whole layers; TE scoped graphs need selective recompute outside the graphs
    "model.recompute_granularity=selective",
    "model.recompute_method=null",
    "model.recompute_num_layers=null",
    "model.recompute_modules=[moe_act,layernorm]",
]

EAGER = ["model.cuda_graph_impl=none"]

GRAPHED = [
    "model.cuda_graph_impl=transformer_engine",
    "model.cuda_graph_scope=null",        # recipe default "full" + modules asserts on 0.18+
    # router + dispatch preprocessing + the dense MLP GEMMs; attention is added in a second A/B
    "model.cuda_graph_modules=[moe_router,moe_preprocess,mlp]",
    "model.cuda_graph_warmup_steps=3",
    "model.use_te_rng_tracker=true",
    "rng.te_rng_tracker=true",
]


def _launch(overrides, iters):
    import subprocess

    cmd = [
        "torchrun", "--nproc-per-node", "8", "scripts/training/run_recipe.py",
        "--recipe", RECIPE, "--mode", "pretrain", f"train.train_iters={iters}", *overrides,
    ]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out.stdout + out.stderr


def _steady_state_ms(log, skip=4):
    import re

    times = [float(m) for m in re.findall(r"elapsed time per iteration \(ms\): ([0-9.]+)", log)]
    return sorted(times[skip:])[len(times[skip:]) // 2] if len(times) > skip else float("nan")


class MoeCudaGraphAB(FlowSpec):
    iters = Parameter("iters", default=40)

    @step
    def start(self):
        self.arms = ["eager", "graphed"]
        self.next(self.run_arm, foreach="arms")

    @resources(gpu=8)
    @step
    def run_arm(self):
        self.arm = self.input
        overrides = COMMON + (EAGER if self.arm == "eager" else GRAPHED)
        self.log = _launch(overrides, self.iters)
        # skip 3 warmup iterations + the capture iteration; replay iterations only
        self.step_ms = _steady_state_ms(self.log, skip=4)
        self.next(self.join)

    @step
    def join(self, inputs):
        self.result = {i.arm: i.step_ms for i in inputs}
        # neutral results are common when the alltoall dominates: keep graphs only if faster
        self.keep_graphs = self.result["graphed"] < self.result["eager"]
        self.next(self.end)

    @step
    def end(self):
        print("steady-state median ms/iter:", self.result, "keep graphs:", self.keep_graphs)
        print("next A/B: add attn -> model.cuda_graph_modules=[attn,moe_router,moe_preprocess,mlp]")


if __name__ == "__main__":
    MoeCudaGraphAB()
