#!/usr/bin/env nu
# decode-graphs.nu - serve a GPT checkpoint with the MCore dynamic engine (megatron-core 0.19)
# and CUDA graphs for decode.
#
# Notes for whoever runs this:
#  - Decode steps are launch-bound (a few rows per layer per token), so graphs pay off at small
#    batch. Compare tokens/s against --no-graphs at your real batch size before keeping it.
#  - Transformer Engine graphs work for decode too, as long as the inference scope is per layer:
#    TE captures each TransformerLayer, so --inference-cuda-graph-scope layer is the matching
#    granularity. Only the whole-block scope ("block") is tied to the local manager. We use TE here
#    because the training job already validated TE graphs on this model.
#  - num-cuda-graphs must be set; -1 lets the engine pick the bucket sizes.
#  - decode-only graphs: prefill token counts vary, graphing them multiplies memory.
#  - Capture and replay must happen under the same torch.inference_mode (the example script does).
#  - MoE checkpoints: add --moe-pad-experts-for-cuda-graph-inference. FP8 + block needs
#    --transformer-impl inference_optimized. No PP-microbatched inference with graphs.
#  - Success looks like "> built cuda graph(s) in ... sec" in the startup log.

def main [
  --load: string          # checkpoint dir
  --tokenizer: string     # tokenizer model path
  --tp: int = 1
  --no-graphs             # eager baseline for the A/B
] {
  $env.CUDA_DEVICE_MAX_CONNECTIONS = "1"

  let graph_args = if $no_graphs {
    [--cuda-graph-impl none]
  } else {
    [
      --cuda-graph-impl transformer_engine
      --inference-cuda-graph-scope layer
      --inference-dynamic-batching-num-cuda-graphs -1
      --decode-only-cuda-graphs
      --te-rng-tracker
    ]
  }

  let args = [
    --load $load
    --tokenizer-type HuggingFaceTokenizer
    --tokenizer-model $tokenizer
    --tensor-model-parallel-size ($tp | into string)
    --pipeline-model-parallel-size 1
    --micro-batch-size 1
    --bf16
    --inference-dynamic-batching-buffer-size-gb 20
    --num-tokens-to-generate 256
    ...$graph_args
  ]

  ^torchrun --nproc-per-node $tp examples/inference/gpt/gpt_dynamic_inference.py ...$args
}
