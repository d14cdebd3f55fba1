#!/usr/bin/env python3
"""Write ds_config.json for full fine-tuning of a 7B model on 4x A100 40GB.

Decision: ZeRO stage 3 (no offload to start). Fallback if ZeRO-3 is too slow on your
interconnect: ZeRO-2 *with* optimizer offload to CPU. Plain ZeRO-2 on the GPU does not fit.

Model-state memory per GPU (P = 7e9 params, N = 4 GPUs, bf16 + Adam), the same accounting
DeepSpeed's own estimators use (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py):

  ZeRO-2, no offload : 2P (bf16 params, replicated) + 18P/N (grads16+grads32+fp32 master+Adam m,v)
                     = 14 GB + 31.5 GB = 45.5 GB   -> over 40 GB before any activation
  ZeRO-2 + offload   : 2P on GPU = 14 GB; optimizer states + fp32 master on CPU (~16P ~ 112 GB RAM+)
  ZeRO-3, no offload : 18P/N + 4 x largest layer ~= 31.5 GB + ~0.5 GB (embedding) ~= 32 GB
                       -> fits, with ~8 GB left for activations: use gradient checkpointing
                       and micro-batch 1-2. If that's still too tight, keep stage 3 and add
                       "offload_optimizer": {"device": "cpu"} before anything else.

Stage recap: ZeRO-1 shards optimizer states, ZeRO-2 also gradients, ZeRO-3 also the
parameters themselves (more communication: params are all-gathered per layer in forward and
backward). On 4 GPUs of one node over NVLink that extra traffic is cheap, so ZeRO-3 is the
natural pick here.

Check the numbers on your exact model before launching:

    python -c "from transformers import AutoModelForCausalLM; \
      from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs_all_live; \
      m = AutoModelForCausalLM.from_pretrained('your/7b'); \
      estimate_zero3_model_states_mem_needs_all_live(m, num_gpus_per_node=4, num_nodes=1)"

Run:  python write_ds_config.py [--offload]   then   deepspeed --num_gpus 4 train.py --deepspeed ds_config.json
With the HF Trainer, the "auto" values are filled from TrainingArguments; enable
gradient_checkpointing there too.
"""

import argparse
import json

ZERO3 = {
    "bf16": {"enabled": True},                      # A100 supports bf16: no loss scaling needed
    "zero_optimization": {
        "stage": 3,
        "overlap_comm": True,
        "contiguous_gradients": True,
        "reduce_bucket_size": "auto",
        "stage3_prefetch_bucket_size": "auto",
        "stage3_param_persistence_threshold": "auto",
        "stage3_max_live_parameters": 1e9,
        "stage3_max_reuse_distance": 1e9,
        "stage3_gather_16bit_weights_on_model_save": True,   # save a normal HF checkpoint
    },
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
    "wall_clock_breakdown": False,
}

ZERO2_OFFLOAD = {
    "bf16": {"enabled": True},
    "zero_optimization": {
        "stage": 2,
        "offload_optimizer": {"device": "cpu", "pin_memory": True},
        "overlap_comm": True,
        "contiguous_gradients": True,
        "allgather_bucket_size": 2e8,
        "reduce_bucket_size": 2e8,
    },
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--offload", action="store_true",
                    help="write the ZeRO-2 + CPU optimizer offload fallback instead of ZeRO-3")
    ap.add_argument("-o", "--output", default="ds_config.json")
    args = ap.parse_args()

    cfg = ZERO2_OFFLOAD if args.offload else ZERO3
    with open(args.output, "w") as f:
        json.dump(cfg, f, indent=2)
    print(f"wrote {args.output}: ZeRO stage {cfg['zero_optimization']['stage']}"
          f"{' + CPU optimizer offload' if args.offload else ''}")


if __name__ == "__main__":
    main()
