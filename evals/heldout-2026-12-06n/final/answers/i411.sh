#!/usr/bin/env bash
# nccl_bw_check.sh -- measure and debug inter-node all-reduce bandwidth (2 x 8xH100)
# Usage: HOSTS=node1,node2 ./nccl_bw_check.sh
set -euo pipefail

# 0. Build nccl-tests once (needs MPI + CUDA + NCCL):
#    git clone https://github.com/NVIDIA/nccl-tests && cd nccl-tests && make MPI=1
NT=${NT:-$HOME/nccl-tests/build}

# 1. Intra-node baseline first (NVLink). busbw here should be ~hundreds of GB/s.
$NT/all_reduce_perf -b 8 -e 8G -f 2 -g 8

# 2. Inter-node, one rank per GPU. Look at the *busbw* column for large sizes
#    (>=1 GB) and compare with your fabric: e.g. 8x400 Gb/s NDR per node
#    -> roughly 8*50 GB/s = ~400 GB/s raw; well-tuned IB lands at ~85-90% of that.
export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH
mpirun -np 16 -H ${HOSTS:?}:8 --bind-to none \
  -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS -x LD_LIBRARY_PATH \
  $NT/all_reduce_perf -b 8 -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

# 3. What to read in the log:
grep -E "NET/IB|NET/Socket|GPU Direct RDMA|Using network" nccl_2node.log | sort -u || true
#   - "NET/Socket" instead of "NET/IB"  -> IB not used: check rdma-core/libibverbs,
#     NCCL_IB_HCA, container --device /dev/infiniband, NCCL_IB_DISABLE not set
#   - no "GPU Direct RDMA" -> nvidia-peermem / dma-buf missing, traffic bounces via host
#   - only some mlx5_* HCAs listed -> set NCCL_IB_HCA to all rails, e.g. =mlx5_0,mlx5_1,...
#   - RoCE: check NCCL_IB_GID_INDEX and PFC/ECN on the switches
#   - NCCL_SOCKET_IFNAME should point at the real mgmt/data interface (not docker0/lo)

# 4. Topology sanity: each GPU should share a PCIe switch with its NIC
nvidia-smi topo -m
ibstat | grep -E "State|Rate"

# Half of expected usually = one of: half the HCAs in use, no GPUDirect RDMA,
# wrong GID/RoCE config, or NIC/GPU on different sockets (PIX vs SYS in topo -m).
