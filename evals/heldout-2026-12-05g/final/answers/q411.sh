#!/bin/bash
# =============================================================================
# nccl_busbw_probe.sbatch: measure (and localise) low all-reduce bandwidth
# between two 8xH100 nodes.
#
# HOW TO READ THE RESULT (read this before the numbers)
#
# 1. Compare the *busbw* column, not algbw, at large message sizes (>= 1 GiB),
#    against the hardware bottleneck. For all-reduce, busbw = algbw * 2(n-1)/n
#    (nccl-tests doc/PERFORMANCE.md). With n = 16 ranks that factor is 1.875,
#    so if you have been comparing algbw (or bytes/time from your own timer)
#    against the NIC line rate, "half of what I expect" is roughly what you
#    would see even on a healthy fabric.
#    Between two nodes the bottleneck is the network: the summed line rate of
#    the GPU-facing NICs (e.g. 8 x 400 Gb/s ~ 400 GB/s raw per node per
#    direction). A healthy large-message busbw gets most of the way there.
#    Far below that = a real problem; keep reading.
#
# 2. In the NCCL_DEBUG=INFO output (rank 0's log is enough) check:
#      "NET/IB : Using [0]mlx5_0:1/IB ..."   -> InfiniBand/RoCE verbs in use (good)
#      "NET/Socket : Using ..."              -> fell back to TCP sockets (very slow):
#                                               IB not visible (container without
#                                               /dev/infiniband, missing rdma libs)
#      "... via NET/IB/<n>/GDRDMA"           -> GPUDirect RDMA in use (good)
#      "... via NET/IB/<n>" without GDRDMA   -> traffic bounces through host memory:
#                                               load nvidia-peermem (or use a
#                                               DMA-BUF capable driver/kernel),
#                                               check PCIe ACS is off on the switches
#      count of "NET/IB" devices             -> should be all 8 compute HCAs, not 1-2
#
# 3. Typical fixes
#      NCCL_IB_HCA        list exactly the GPU-facing HCAs (exclude storage/mgmt ports)
#      NCCL_SOCKET_IFNAME the interface for NCCL's bootstrap (e.g. the mgmt ethernet),
#                         so it doesn't pick docker0/lo
#      NCCL_IB_GID_INDEX  RoCE only: the RoCEv2 GID index (often 3)
#      topology           `nvidia-smi topo -m`: each GPU should sit PIX/PXB to its NIC,
#                         not SYS; a GPU and its NIC across sockets halves that rail
#      links              `ibstat` on both nodes: every port Active, full rate;
#                         `ib_write_bw` per HCA pair to find one slow link/cable
#    Leave NCCL_ALGO / NCCL_PROTO alone unless you are diagnosing a specific
#    algorithm; forcing them usually hides the real cause.
# =============================================================================
#SBATCH --job-name=nccl-busbw
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#SBATCH --time=00:20:00

set -euo pipefail

# nccl-tests built with MPI support:
#   git clone https://github.com/NVIDIA/nccl-tests && make -C nccl-tests MPI=1 MPI_HOME=$MPI_HOME
NCCL_TESTS=${NCCL_TESTS:-./nccl-tests/build}

export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH
# Uncomment/adjust after reading the first run's log:
# export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
# export NCCL_SOCKET_IFNAME=eth0
# export NCCL_IB_GID_INDEX=3          # RoCE only

echo "== per-node sanity: NIC state and GPU<->NIC topology =="
srun --ntasks-per-node=1 bash -c 'hostname; ibstat | grep -E "CA |State|Rate" ; nvidia-smi topo -m | head -20; lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "no peermem module (GDR needs it or DMA-BUF)"'

echo "== baseline: one node, NVLink only (8 ranks) =="
srun --nodes=1 --ntasks=8 --mpi=pmix "$NCCL_TESTS/all_reduce_perf" -b 8 -e 8G -f 2 -g 1

echo "== two nodes, 16 ranks: the number you care about =="
srun --mpi=pmix "$NCCL_TESTS/all_reduce_perf" -b 8 -e 16G -f 2 -g 1 2>&1 | tee allreduce_2node.log

echo "== transport summary from rank logs =="
grep -E "NET/IB : Using|NET/Socket : Using|GDRDMA|via NET" allreduce_2node.log | sort | uniq -c | head -40

# Read the "# Avg bus bandwidth" line and the busbw column at the largest sizes.
