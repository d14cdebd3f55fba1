# modules/megatron_train/manifests/cuda_graphs.pp
#
# Drops the Bridge YAML override that enables Transformer Engine per-layer CUDA graphs
# (attention + MLP) for a dense GPT recipe on images pinned to megatron-core 0.16.1.
#
# 0.16.x/0.17.x spelling: the per-layer coverage key is `cuda_graph_scope`.
#   - `cuda_graph_modules` does not exist before 0.18. It is not a field of the 0.16 config:
#     a Hydra override naming it is rejected, and a YAML value is skipped with a warning, so
#     the graphs would not get the coverage you asked for.
#   - `cuda_graph_impl: full_iteration` is not a valid value on 0.16 either (allowed:
#     none | local | transformer_engine).
# The same lines in Python, if you'd rather edit the recipe directly:
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = ["attn", "mlp"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#
# Keep seq_length and micro_batch_size fixed for graphed runs, and judge speed on the
# iterations after capture, not on the capture iteration.

class megatron_train::cuda_graphs (
  String  $conf_dir       = "${megatron_train::root}/conf",
  Integer $warmup_steps   = 3,
  Boolean $enable         = true,
) {
  $override_file = "${conf_dir}/cuda_graphs_te_attn_mlp.yaml"

  if $enable {
    file { $override_file:
      ensure  => file,
      mode    => '0644',
      content => @("YAML"/L),
        # managed by puppet: megatron_train::cuda_graphs (megatron-core 0.16.1)
        model:
          cuda_graph_impl: transformer_engine
          cuda_graph_scope: [attn, mlp]
          cuda_graph_warmup_steps: ${warmup_steps}
          use_te_rng_tracker: true
        rng:
          te_rng_tracker: true
        | YAML
    }
  } else {
    file { $override_file:
      ensure => absent,
    }
  }

  # The job wrapper passes the file to the recipe script:
  #   torchrun --nproc-per-node 8 pretrain_gpt_recipe.py --config-file ${override_file}
  # which merges it via megatron.bridge.training.utils.omegaconf_utils.process_config_with_overrides.
  # Same thing as Hydra overrides:
  #   model.cuda_graph_impl=transformer_engine "model.cuda_graph_scope=[attn,mlp]"
  #   model.cuda_graph_warmup_steps=3 model.use_te_rng_tracker=true rng.te_rng_tracker=true
}
