#!/usr/bin/env bash
# nccl_bw_triage.sh — 2 nodes x 8 H100, all-reduce busbw ~half of expected.
# Not a framework problem; measure the fabric with nccl-tests first.
#
# Expectation: 8x H100 per node with 8x 400G NDR IB (one HCA per GPU) ->
# inter-node all_reduce busbw in the ~350-400 GB/s range at large sizes.
# ~half of that usually = wrong transport, half the HCAs unused, or no GDRDMA.
set -euo pipefail

# 0) build once:  git clone https://github.com/NVIDIA/nccl-tests && make MPI=1 -C nccl-tests

# 1) intra-node baseline (NVLink/NVSwitch) - rules out the node itself
./nccl-tests/build/all_reduce_perf -b 8M -e 8G -f 2 -g 8

# 2) inter-node, 1 process per GPU, look at busbw of the largest sizes
export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,NET
mpirun -np 16 -N 8 --hostfile hosts \
  -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS -x NCCL_IB_HCA -x NCCL_SOCKET_IFNAME \
  ./nccl-tests/build/all_reduce_perf -b 8M -e 8G -f 2 -g 1 2>&1 | tee ar_2node.log

# 3) what to read in ar_2node.log
grep -E "NET/IB|NET/Socket|GPU Direct RDMA|Using network" ar_2node.log | sort | uniq -c
#  - "NET/Socket" / "Using network Socket"  -> IB not used: fix NCCL_IB_HCA / drivers
#  - fewer mlx5_* devices than GPUs         -> set NCCL_IB_HCA=mlx5_0,mlx5_1,... (all rails)
#  - no "GPU Direct RDMA Enabled"            -> nvidia-peermem / dmabuf not loaded
#  - RoCE: check NCCL_IB_GID_INDEX and PFC/ECN on the switch
#  - NCCL_SOCKET_IFNAME should point at the mgmt/bootstrap NIC, not docker0/lo

# 4) topology sanity
nvidia-smi topo -m           # each GPU should have a NIC at PIX/PXB, not SYS
ibstat | grep -E "Rate|State" # all ports Active at 400
# check PCIe link width/speed of NICs: lspci -vv | grep -E "LnkSta:" (x16, 32GT/s)

# 5) re-run step 2 after each change and compare busbw (not algbw).
