// train_graphs.nf -- Nextflow process for the Megatron-LM TE-graph training step
//
// About the startup assert
//   "Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory access when using CUDA Graph
//    with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."
// You don't have to drop expandable segments. The assert only wants NCCL's graph
// user-buffer registration off while the allocator uses expandable segments (registered
// buffers + remapped segment pages -> illegal memory access on replay).
//
// Version note: megatron-core 0.19 dropped this startup check (it was tied to the older
// graph-capture path), so on 0.19+ expandable segments work on their own and the extra
// variable isn't needed any more. On 0.16-0.18 keep NCCL_GRAPH_REGISTER=0 next to
// expandable_segments. The process below sets it only where it's required.

params.mcore_version = '0.18.2'   // what `python -c "import megatron.core as m; print(m.__version__)"` prints
params.nproc         = 8
params.train_args    = '--cuda-graph-impl transformer_engine --cuda-graph-modules attn --te-rng-tracker'  // 0.16-0.17: --cuda-graph-scope attn

def needsGraphRegisterOff(String v) {
    def (maj, min) = v.tokenize('.').take(2).collect { it as int }
    return maj == 0 && min < 19
}

process TRAIN_TE_GRAPHS {
    label 'gpu8'
    container 'nvcr.io/nvidia/nemo:25.11'

    input:
    path megatron_dir

    output:
    path 'train.log'

    script:
    def registerLine = needsGraphRegisterOff(params.mcore_version) ? 'export NCCL_GRAPH_REGISTER=0' : ''
    """
    export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
    ${registerLine}
    cd ${megatron_dir}
    torchrun --nproc-per-node ${params.nproc} pretrain_gpt.py ${params.train_args} \\
        2>&1 | tee \$OLDPWD/train.log
    grep -E "graphable layers|Time spent in CUDA Graphs capture" \$OLDPWD/train.log || true
    """
}

workflow {
    TRAIN_TE_GRAPHS(Channel.fromPath(params.megatron_dir ?: 'Megatron-LM', type: 'dir'))
}
