"""Launcher-side guard for activation CPU offloading vs. CUDA graphs.

Answer to "cpu_offloading=True, cpu_offloading_num_layers=4 plus TE CUDA graphs on attn - OK?":
no. Megatron-Core refuses the combination when it builds the TransformerConfig:

    ValueError: CUDA graphs not supported with CPU offloading.

- megatron-core 0.16 / 0.17: raised for every cuda_graph_impl ("local" and "transformer_engine").
- megatron-core 0.18+: raised for "local" and "transformer_engine"; only the whole-iteration
  impl ("full_iteration") passes this particular check.
- Megatron Bridge's CUDA-graph guide lists CPU offloading as incompatible.

Activation offloading moves tensors to the host with their own syncs and gives activations
new addresses every step, which a recorded graph cannot follow. So pick one of the two
profiles below instead of discovering it at model build time:

  * GRAPHS  - TE graphs on attn; activation offloading off. Win the memory back with
              selective recompute (modules outside the graphed attn) and/or optimizer
              CPU offload (optimizer state lives on the host, not activations).
  * OFFLOAD - keep cpu_offloading for memory; cuda_graph_impl="none".

Measure both; graphs only pay off when the step is launch-bound.
"""

from typing import Literal

from pydantic import BaseModel, model_validator


class MemoryAndGraphSettings(BaseModel):
    mcore_version: tuple[int, int] = (0, 19)

    cuda_graph_impl: Literal["none", "local", "transformer_engine", "full_iteration"] = "none"
    cuda_graph_modules: list[str] = []  # 0.16/0.17 stacks: written out as cuda_graph_scope
    use_te_rng_tracker: bool = False

    cpu_offloading: bool = False
    cpu_offloading_num_layers: int = 0

    recompute_granularity: Literal["selective", "full"] | None = None
    recompute_modules: list[str] = []

    optimizer_cpu_offload: bool = False
    optimizer_offload_fraction: float = 0.0

    @model_validator(mode="after")
    def _no_activation_offload_with_layer_graphs(self):
        if self.cpu_offloading and self.cuda_graph_impl != "none":
            allowed = self.mcore_version >= (0, 18) and self.cuda_graph_impl == "full_iteration"
            if not allowed:
                raise ValueError(
                    "CUDA graphs not supported with CPU offloading "
                    f"(cuda_graph_impl={self.cuda_graph_impl!r}, megatron-core "
                    f"{self.mcore_version[0]}.{self.mcore_version[1]}); pick the GRAPHS or OFFLOAD profile"
                )
        if self.cuda_graph_impl != "none" and not self.use_te_rng_tracker:
            raise ValueError("CUDA graphs need the TE RNG tracker (model.use_te_rng_tracker / rng.te_rng_tracker)")
        if self.recompute_granularity == "full" and self.cuda_graph_impl == "transformer_engine":
            raise ValueError("full recompute does not go with TE scoped graphs; use selective")
        return self


GRAPHS = MemoryAndGraphSettings(
    cuda_graph_impl="transformer_engine",
    cuda_graph_modules=["attn"],
    use_te_rng_tracker=True,  # also set rng.te_rng_tracker=True in Bridge
    cpu_offloading=False,
    recompute_granularity="selective",
    recompute_modules=["mlp"],  # outside the graphed attn; never core_attn under graphed attn with dropout
    optimizer_cpu_offload=True,
    optimizer_offload_fraction=1.0,
)

OFFLOAD = MemoryAndGraphSettings(
    cuda_graph_impl="none",
    cpu_offloading=True,
    cpu_offloading_num_layers=4,
)
