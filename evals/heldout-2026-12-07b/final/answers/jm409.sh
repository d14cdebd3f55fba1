#!/usr/bin/env bash
# Two 8xH100 nodes: measure all-reduce bandwidth with nccl-tests and find out why
# it is ~half of what you expect. This is an NCCL/fabric problem, so debug it with
# NCCL tooling directly, outside any training framework.
#
# Rule 1: compare the *busbw* column (not algbw) against the hardware.
#   For all_reduce, busbw = algbw * 2(n-1)/n. That's the number nccl-tests
#   defines to be comparable with link bandwidth regardless of rank count.
#   With n=16, algbw is only ~53% of busbw, so "half of expected" can simply
#   mean the wrong column is being read. Check that first.
# Rule 2: look at large messages (>= 1 GiB). Small sizes are latency-bound.
set -uo pipefail   # no -e: the grep checks below may legitimately find nothing

NODE1=${NODE1:-node1}
NODE2=${NODE2:-node2}

# --- 0. Build nccl-tests with MPI support (once) ------------------------------
# git clone https://github.com/NVIDIA/nccl-tests.git && cd nccl-tests
# make MPI=1 MPI_HOME=/usr/local/mpi CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr -j

# --- 1. Single node baseline (NVLink/NVSwitch only) ---------------------------
# If this is already low, the problem is intra-node (GPU clocks, NVLink/fabric
# manager, wrong container flags), not the network.
./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8

# --- 2. Two nodes, 16 ranks, with NCCL's own diagnostics ----------------------
mpirun -np 16 -H "${NODE1}:8,${NODE2}:8" --bind-to numa \
  -x NCCL_DEBUG=INFO \
  -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  -x LD_LIBRARY_PATH \
  ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

# --- 3. Read the NCCL_DEBUG output --------------------------------------------
# Transport: you want "NET/IB" (InfiniBand or RoCE). "NET/Socket" means TCP
# fallback, and that is usually far worse than half.
grep -E "NET/(IB|Socket)|Using network" nccl_2node.log | sort | uniq -c | head
# Which HCAs are used, and how many. On a rail-optimized 8-NIC node you want all 8
# NICs, one per GPU. Only 4 in use is a classic "half bandwidth" signature.
grep -E "NET/IB : Using|mlx5_" nccl_2node.log | head -20
# GPUDirect RDMA: channel lines should say ".../GDRDMA". Without it, traffic
# bounces through host memory.
grep -E "via NET/IB.*GDRDMA|via NET/IB" nccl_2node.log | head

# --- 4. Usual fixes / checks ---------------------------------------------------
# a) NIC selection: don't filter NICs away by accident; select them explicitly if
#    needed:
#      export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
#    (or exclude the storage/management NIC:  NCCL_IB_HCA=^mlx5_bond_0)
# b) Bootstrap/socket interface: point it at the right netdev, not docker0/lo:
#      export NCCL_SOCKET_IFNAME=ens1f0     # or ^docker,lo
# c) RoCE only: correct GID index (RoCE v2 is usually 3), lossless config
#    (PFC/ECN) and MTU on the switches:
#      export NCCL_IB_GID_INDEX=3
# d) GPUDirect RDMA: load nvidia_peermem (or use a dmabuf-capable driver/kernel):
lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "peermem module not loaded"
# e) Link state and speed of every HCA (Active, expected rate, e.g. 400 Gb/s NDR).
#    A port negotiated at a lower speed or a down link halves that rail.
ibstat | grep -E "CA '|State:|Rate:"
# f) Topology: every GPU should have a NIC close to it (PIX/PXB, not SYS).
#    PCIe ACS enabled on switches forces P2P through the root complex and hurts
#    GDR bandwidth; disable ACS for GPU/NIC P2P (BIOS or setpci).
nvidia-smi topo -m
# g) Raw fabric check without NCCL (perftest), per NIC pair, both directions:
#      node2$ ib_write_bw -d mlx5_0 --report_gbits
#      node1$ ib_write_bw -d mlx5_0 --report_gbits node2
#    It should be close to line rate. If one NIC is low, it's cabling/switch/port.
# h) Containers: --network=host --ipc=host, pass /dev/infiniband, --ulimit memlock=-1,
#    --cap-add=IPC_LOCK, and a recent NCCL (check the "NCCL version" line).
# i) Don't leave NCCL_ALGO/NCCL_PROTO/NCCL_NET_GDR_LEVEL overrides set from old
#    experiments; unset them and re-measure.

# --- 5. Re-run step 2 after each change and compare busbw at 1-8 GiB -----------
# Compare to your cluster's acceptance numbers or a known-good node pair. If
# busbw is at the fabric limit but training is still slow, the bottleneck is
# elsewhere (overlap, bucket sizes, PP/TP layout), not NCCL bandwidth.
