#!/usr/bin/env bash
# NCCL all-reduce bandwidth triage for 2 x 8xH100 nodes.
# This is a fabric/NCCL problem. CUDA graphs and framework settings don't come into it, so
# measure with nccl-tests first, outside any training job.
set -euo pipefail

HOSTS=${HOSTS:-node1:8,node2:8}
NT=${NT:-$HOME/nccl-tests/build}

echo "== 0. build nccl-tests once (MPI build so it can span nodes) =="
# git clone https://github.com/NVIDIA/nccl-tests && cd nccl-tests
# make MPI=1 MPI_HOME=/usr/mpi/gcc/openmpi CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr

echo "== 1. single-node baseline (NVLink/NVSwitch only) =="
# If this is already low, the problem is inside the box (driver, fabric manager, NVLink), not the network.
mpirun -np 8 -H node1:8 -x NCCL_DEBUG=WARN \
  "$NT/all_reduce_perf" -b 8 -e 8G -f 2 -g 1

echo "== 2. two-node run, 16 ranks, one GPU per rank =="
# Read busbw (not algbw) at the large sizes (>= 1 GB). For all-reduce,
# busbw = algbw * 2(n-1)/n, which is the number nccl-tests means to compare with hardware peak.
mpirun -np 16 -H "$HOSTS" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET \
  "$NT/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

echo "== 3. what transport did NCCL pick? =="
grep -E "NET/(IB|Socket)|GDRDMA|Using network|NCCL_IB_HCA|via NET" nccl_2node.log | sort | uniq -c | head -40
# Healthy:    "Using network IB", "NET/IB/<n>/GDRDMA" on every channel, all compute HCAs listed.
# Red flags:  "NET/Socket" (fell back to TCP), no GDRDMA (bounce through host memory), only some HCAs
#             used, or a storage/management NIC in the list.

echo "== 4. link-level sanity on every node =="
for h in node1 node2; do
  ssh "$h" 'ibstat | grep -E "CA |State|Rate|Link layer"; lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "no peermem module: GPUDirect RDMA off"'
done
# Every compute port should be Active at the expected rate (e.g. 400 Gb/s NDR). One port at a lower
# rate, or Down, can cap the whole ring.

echo "== 5. topology: each GPU should share a PCIe switch (PIX) with its NIC =="
ssh node1 nvidia-smi topo -m
# GPU<->NIC at SYS/NODE instead of PIX means traffic crosses the CPU. Check BIOS/ACS settings
# (ACS must be off for peer-to-peer between GPU and NIC) and the NIC/GPU mapping.

echo "== 6. per-NIC raw bandwidth (perftest), one pair at a time =="
# node2: ib_write_bw -d mlx5_0 --report_gbits
# node1: ib_write_bw -d mlx5_0 --report_gbits node2
# Compare each NIC against line rate. A single slow NIC or cable shows up here.

echo "== 7. then re-run step 2 with explicit selection if needed =="
# export NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7   # compute HCAs only
# export NCCL_SOCKET_IFNAME==eth0        # bootstrap/OOB interface; doesn't select the IB data path
# Don't leave debugging knobs (NCCL_ALGO, NCCL_PROTO, NCCL_IB_DISABLE, NCCL_P2P_DISABLE) set in
# production. If one of them "fixes" it, that's a clue to the real cause, not the fix.
#
# Judge the result against what a known-good pair of nodes on the same fabric gets, or your vendor's
# nccl-tests reference, with the same message sizes and rank count.
