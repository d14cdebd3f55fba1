#!/usr/bin/env bash
# Measure and debug inter-node all-reduce bandwidth (2 nodes x 8 H100)
set -euo pipefail

# 1) Build nccl-tests (once)
#    git clone https://github.com/NVIDIA/nccl-tests && cd nccl-tests
#    make MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi CUDA_HOME=/usr/local/cuda

# 2) Single node first: establishes the NVLink baseline (busbw ~ several hundred GB/s on H100)
mpirun -np 8 -H node1:8 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1

# 3) Two nodes, with NCCL telling you what transport it picked
mpirun -np 16 -H node1:8,node2:8 \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET \
  ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

# Read the *busbw* column at large sizes (>= 1 GB) -- busbw is already normalised
# (algbw * 2(n-1)/n for all-reduce) so it is comparable to the per-GPU network rate.
# With 8x 400 Gb/s NICs per node, inter-node busbw should be roughly 40-48 GB/s per GPU
# at large messages; half of that is a real problem.

# 4) What to look for in nccl_2node.log
grep -E "NET/IB|NET/Socket|GDRDMA|Using network" nccl_2node.log | head
#  - "NET/Socket" => NCCL is not using InfiniBand/RoCE at all -> check drivers, rdma-core,
#    and that the container sees /dev/infiniband.
#  - "NET/IB" without "GDRDMA" => GPUDirect RDMA is off; load nvidia-peermem
#    (lsmod | grep peermem) and check ACS/IOMMU settings.
#  - fewer NICs used than expected => set the HCA list explicitly.

# 5) Knobs to try (one at a time, re-run step 3 after each)
# export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
# export NCCL_SOCKET_IFNAME=eth0          # bootstrap/OOB interface only
# export NCCL_IB_GID_INDEX=3              # RoCE: usually the RoCEv2 GID
# export NCCL_NET_GDR_LEVEL=PHB
# nvidia-smi topo -m                      # check each GPU has a NIC on the same PCIe switch

# 6) If NCCL looks right, test the fabric itself (rules out NCCL):
#    ib_write_bw -d mlx5_0 --use_cuda=0 <node1>   (perftest)
#    and check link state/speed: ibstat, and switch port counters for errors.
