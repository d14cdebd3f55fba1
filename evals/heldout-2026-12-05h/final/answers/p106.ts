// cudaGraphOverrides.ts: builds the Hydra override list for our Bridge launcher.
// Qwen3-30B-A3B, dropless MoE, alltoall dispatcher, EP=8.
//
// Answer to "which scope / can I graph the whole MoE layer?":
//   No. Dropless routing gives a different token count per expert every step, and the alltoall
//   dispatcher syncs those counts to the host. That can't be captured, and MCore refuses the
//   `moe` module unless you use drop-and-pad. Use Transformer Engine per-layer graphs on the router
//   and preprocess instead (moe_preprocess requires moe_router; moe and moe_router are mutually
//   exclusive), and A/B adding attn.
//
// About RNG: the TE impl graphs layers through make_graphed_callables, which manages its own
// RNG state. The TE RNG tracker keys are only for MCore's "local" graph manager, so we leave them
// at their defaults here.

import { z } from "zod";

const Module = z.enum(["attn", "moe_router", "moe_preprocess"]);

const CudaGraphConfig = z
  .object({
    impl: z.literal("transformer_engine"),
    modules: z.array(Module).nonempty(),
    warmupSteps: z.number().int().min(1).default(3),
  })
  .refine(
    (c) => !c.modules.includes("moe_preprocess") || c.modules.includes("moe_router"),
    { message: "moe_preprocess requires moe_router" }
  );

type CudaGraphConfig = z.infer<typeof CudaGraphConfig>;

export function toOverrides(c: CudaGraphConfig): string[] {
  const cfg = CudaGraphConfig.parse(c);
  return [
    `model.cuda_graph_impl=${cfg.impl}`,
    "model.cuda_graph_scope=null", // megatron-core 0.18+: recipe's legacy key must not coexist with modules
    `model.cuda_graph_modules=[${cfg.modules.join(",")}]`,
    `model.cuda_graph_warmup_steps=${cfg.warmupSteps}`,
  ];
}

// Step 1 (baseline graphs): router + preprocess
export const step1 = toOverrides({
  impl: "transformer_engine",
  modules: ["moe_router", "moe_preprocess"],
  warmupSteps: 3,
});

// Step 2 (A/B): add attention
export const step2 = toOverrides({
  impl: "transformer_engine",
  modules: ["attn", "moe_router", "moe_preprocess"],
  warmupSteps: 3,
});

// Keep seq_length / micro_batch_size static. Compare post-capture step times against eager, not
// the capture step. Neutral results are common when the alltoall dominates.
