#!/bin/bash
# nccl_allreduce_2node.sbatch: measure inter-node all-reduce on 2 x 8xH100 and collect
# what you need to explain "half the expected bandwidth".
#
# Build nccl-tests once with MPI support:
#   git clone https://github.com/NVIDIA/nccl-tests && cd nccl-tests
#   make MPI=1 MPI_HOME=$MPI_HOME CUDA_HOME=$CUDA_HOME NCCL_HOME=$NCCL_HOME
#
#SBATCH --job-name=nccl-ar
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8        # one rank per GPU
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#SBATCH --time=00:20:00
#SBATCH --output=nccl-ar-%j.log

NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests/build}

# --- Diagnostics: log which transport NCCL actually picked ------------------------
export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH
# In the log, look for:
#   "NET/IB : Using [0]mlx5_0:1/IB ..."  -> InfiniBand/RoCE verbs in use (good)
#   "NET/Socket : Using ..."             -> TCP sockets: the classic "half or worse" cause
#   "GPU Direct RDMA Enabled" / "GDRDMA" -> GPUDirect RDMA active; without it, traffic
#                                           bounces through host memory
#   channel/ring lines                   -> how many NICs/channels are used

# --- Point NCCL at the right devices (only if auto-detection gets it wrong) ----------
# export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7   # the compute NICs only
# export NCCL_SOCKET_IFNAME=eth0          # bootstrap/OOB interface, not the IB ports
# export NCCL_IB_GID_INDEX=3              # RoCE only: pick the RoCEv2 GID

# --- Baselines: intra-node first, so the network isn't blamed for a local problem ----
srun --nodes=1 --ntasks=1 --gpus-per-node=8 \
  "$NCCL_TESTS/all_reduce_perf" -b 8 -e 8G -f 2 -g 8

# --- The real measurement: 16 ranks, 2 nodes, large messages -------------------------
# Use the busbw column at the largest sizes (>=1 GiB); small sizes are latency-bound.
srun --mpi=pmix \
  "$NCCL_TESTS/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 -n 50 -w 10

# --- Isolate the fabric with the perftest tools (per NIC pair, outside NCCL) ---------
# node A: ib_write_bw -d mlx5_0 --report_gbits
# node B: ib_write_bw -d mlx5_0 --report_gbits <nodeA>
# Each NIC should get close to its line rate (e.g. ~390 Gb/s on NDR 400).

# How to read it:
# * Compare busbw (not algbw) with the bottleneck hardware. nccl-tests scales
#   all-reduce algbw by 2*(n-1)/n so that busbw is comparable with link speed
#   whatever the rank count (doc/PERFORMANCE.md). For 2 nodes the bottleneck is
#   the inter-node NICs: 8 x 400 Gb/s = ~50 GB/s per GPU-NIC pair.
# * Typical "half" culprits, most common first:
#   1. Sockets instead of IB (NET/Socket in the log): missing/hidden IB devices in the
#      container (mount /dev/infiniband, --privileged or the RDMA device plugin),
#      or the NCCL net plugin not found.
#   2. Only some NICs used: a wrong NCCL_IB_HCA list, or NICs on the wrong PCIe switch
#      relative to the GPUs (check `nvidia-smi topo -m`: each GPU should be PIX/PXB to its NIC).
#   3. No GPUDirect RDMA: nvidia-peermem (or dma-buf) not loaded, ACS/IOMMU blocking
#      peer-to-peer; NCCL then stages through host memory.
#   4. RoCE: wrong GID index, no PFC/ECN (lossy fabric -> retransmits), MTU mismatch.
#   5. A degraded link: `ibstat` shows the rate/width per port (e.g. 4x NDR expected).
# * Re-run after each change and keep the logs; fix one variable at a time.
