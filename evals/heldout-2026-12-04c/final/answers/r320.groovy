// Jenkinsfile stage added in front of the launch, so the CUDA-graph config is checked
// with the skill's validator before any GPU time is spent.
//
// Findings on the config as you posted it (cuda_graph_impl=transformer_engine,
// cuda_graph_scope=[moe, moe_router], use_te_rng_tracker=False, megatron-core 0.19):
//   error [moe-and-moe-router]      'moe' (whole MoE layer) and 'moe_router' (part of it)
//                                   cannot be combined; MCore asserts
//                                   "cuda_graph_modules must not contain both moe and moe_router."
//   error [te-rng-tracker-required] TE graphs need the graph-safe RNG tracker:
//                                   model.use_te_rng_tracker=True and rng.te_rng_tracker=True
// The stage below writes the corrected graph block (dropless MoE: router + preprocess;
// use [moe] alone only for drop-and-pad) and fails the build if validate still complains.

stage('Validate CUDA graph config') {
    agent { label 'cpu' }
    environment {
        MCORE_VERSION = '0.19.2'
        CFG = 'configs/moe_pretrain.yaml'
    }
    steps {
        sh '''
            python -m pip install --quiet ./megatron-cuda-graphs

            # 1) report the original problems (exit 1 = findings; keep going)
            skill-tools validate "$CFG" --mcore-version "$MCORE_VERSION" --json > validate-before.json || true

            # 2) corrected CUDA-graph block
            python - <<'PY'
import yaml
path = "configs/moe_pretrain.yaml"
cfg = yaml.safe_load(open(path))
cfg["model"]["cuda_graph_impl"] = "transformer_engine"
cfg["model"]["cuda_graph_scope"] = ["moe_router", "moe_preprocess"]
cfg["model"]["use_te_rng_tracker"] = True
cfg.setdefault("rng", {})["te_rng_tracker"] = True
yaml.safe_dump(cfg, open("configs/moe_pretrain.fixed.yaml", "w"), sort_keys=False)
PY

            # 3) gate: must be clean for megatron-core 0.19
            skill-tools validate configs/moe_pretrain.fixed.yaml --mcore-version "$MCORE_VERSION"
        '''
    }
    post {
        always {
            archiveArtifacts artifacts: 'validate-before.json, configs/moe_pretrain.fixed.yaml', allowEmptyArchive: true
        }
    }
}
