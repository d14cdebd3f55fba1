# Rakefile -- eager vs TE-graph A/B for the Qwen3-30B-A3B run
# ("captures fine, 48 graphable layers, 6.9 s capture, but not faster than eager").
#
# Short answer: probably nothing is broken. Graphs only remove launch overhead. A dropless MoE
# with the all-to-all dispatcher is mostly communication-bound, so replay is often neutral.
# Bridge's docs show this exact shape at 42.00 s graphed vs 41.36 s eager (Megatron-Bridge PR #3868).
# Before concluding anything:
#   * compare steady-state replay steps only; the capture step and lazy init inflate the early steps,
#   * profile the eager run (nsys) to see whether there are host gaps to remove at all,
#   * make sure replay is not eroded by fallbacks: HybridEP/flex without a static budget, FP8
#     quantisation kernels still running eagerly, host syncs (.item(), NaN check) in the step,
#   * redo the A/B after any dispatcher/overlap/precision change.

RECIPE   = ENV.fetch("RECIPE", "qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config")
STEPS    = 40
SEED     = 1234
COMMON   = %W[train.train_iters=#{STEPS} rng.seed=#{SEED} logger.log_interval=1].freeze

GRAPHS = %w[
  model.cuda_graph_impl=transformer_engine
  model.cuda_graph_scope=null
  model.cuda_graph_modules=[attn,moe_router,moe_preprocess]
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
].freeze

# Capture at the very first step. The capture then lands at iteration 0 instead of in the middle
# of the window, so iterations 1..N are all pure replay and directly comparable with eager.
WARMUP = %w[model.cuda_graph_warmup_steps=0].freeze

def run(tag, overrides)
  sh "torchrun --nproc-per-node 8 scripts/training/run_recipe.py --recipe #{RECIPE} --mode pretrain " \
     "#{(COMMON + overrides).join(' ')} 2>&1 | tee logs/#{tag}.log"
end

directory "logs"

desc "eager baseline"
task eager: "logs" do
  run("eager", %w[model.cuda_graph_impl=none])
end

desc "TE-scoped graphs (dropless MoE scopes)"
task graph: "logs" do
  run("graph", GRAPHS + WARMUP)
end

desc "narrower scope A/B: router + preprocess only"
task graph_narrow: "logs" do
  run("graph_narrow", GRAPHS.map { |o| o.start_with?("model.cuda_graph_modules") ? "model.cuda_graph_modules=[moe_router,moe_preprocess]" : o } + WARMUP)
end

desc "compare steady state (speedup CI, loss)"
task compare: %i[eager graph] do
  sh "skill-tools logs logs/eager.log logs/graph.log --json"
end

desc "eager profile: is the step launch-bound at all?"
task profile: "logs" do
  sh "nsys profile -o logs/eager_profile -t cuda,nvtx torchrun --nproc-per-node 8 " \
     "scripts/training/run_recipe.py --recipe #{RECIPE} --mode pretrain #{COMMON.join(' ')} train.train_iters=8"
end

task default: :compare
# If the speedup CI spans 1.0 on the final stack, keep cuda_graph_impl=none for this job.
