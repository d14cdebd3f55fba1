#!/usr/bin/env bash
# nccl_busbw_triage.sh — measure, then explain, inter-node all-reduce bandwidth (2 x 8xH100)
set -euo pipefail

# 1) Build nccl-tests once (https://github.com/NVIDIA/nccl-tests)
#    make MPI=1 MPI_HOME=$MPI_HOME CUDA_HOME=$CUDA_HOME NCCL_HOME=$NCCL_HOME

# 2) Baseline: intra-node first (NVLink/NVSwitch should give ~hundreds of GB/s busbw)
mpirun -np 8 -H node1:8 ./build/all_reduce_perf -b 8M -e 8G -f 2 -g 1

# 3) Inter-node, 16 ranks, with transport logging
export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,NET
mpirun -np 16 -H node1:8,node2:8 -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS \
  ./build/all_reduce_perf -b 8M -e 8G -f 2 -g 1 2>&1 | tee allreduce_16.log

# Read the LARGE-message busbw column (not algbw) and compare with the fabric:
#   e.g. 8x 400Gb/s NDR per node ~= 8 * 50 GB/s = 400 GB/s aggregate -> expect roughly 350-380 GB/s busbw
grep -E "NET/(IB|Socket)|Using network" allreduce_16.log | head
#   "NET/Socket" => IB isn't used at all -> that alone explains "half or worse"
#   "NET/IB : Using [0]mlx5_0..." => check that ALL HCAs are listed, not just one/two

# 4) Things to check / set, one at a time, re-running step 3 after each:
#   export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7   # all compute HCAs, not storage NIC
#   export NCCL_SOCKET_IFNAME=<mgmt/bootstrap iface>                            # bootstrap only
#   GPUDirect RDMA: nvidia-peermem (or dmabuf) loaded?  lsmod | grep peermem ; look for "GDRDMA" in NCCL INFO lines
#   nvidia-smi topo -m   # each GPU should have a PIX/PXB path to its own NIC, not SYS
#   ibstat / ibv_devinfo: ports Active, expected rate (NDR 400), no port at half speed
#   ACS/IOMMU on PCIe switches disabled for P2P, correct PCIe Gen/width (lspci -vv)
#   If RoCE: NCCL_IB_GID_INDEX and PFC/ECN on the switches
