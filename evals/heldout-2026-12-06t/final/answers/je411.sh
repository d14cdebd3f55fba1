#!/usr/bin/env bash
# nccl_2node_check.sh -- measure and debug inter-node all-reduce bandwidth
# (2 nodes x 8 H100). Run step by step; each block says what to look for.
set -euo pipefail

HOSTS=${HOSTS:-"node1:8,node2:8"}      # adjust to your hostnames
NP=16

# ---------------------------------------------------------------------------
# 0. Build nccl-tests with MPI (once, on a shared FS or on both nodes)
# ---------------------------------------------------------------------------
# git clone https://github.com/NVIDIA/nccl-tests.git && cd nccl-tests
# make MPI=1 MPI_HOME=/usr/local/mpi CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr
# (inside an NGC PyTorch container NCCL is already there)

# ---------------------------------------------------------------------------
# 1. Baseline inside ONE node first. If intra-node busbw is already low,
#    the problem is NVLink/NVSwitch/driver, not the network.
# ---------------------------------------------------------------------------
./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8

# ---------------------------------------------------------------------------
# 2. Two nodes, one process per GPU, with transport logging.
#    Compare the *busbw* column at large sizes (>= 1 GB) against what the
#    fabric can deliver -- busbw is the number nccl-tests normalizes so it can
#    be compared with hardware peak; algbw is not.
# ---------------------------------------------------------------------------
mpirun -np $NP -H "$HOSTS" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  -x LD_LIBRARY_PATH \
  ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

# ---------------------------------------------------------------------------
# 3. Read the log:
#    - "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ..."  -> IB verbs, good.
#      Count the HCAs: you want all 8 compute NICs, one per GPU.
#    - "NET/Socket" or "Using network Socket"             -> NCCL fell back to
#      TCP sockets. That alone explains a big loss. Check that libibverbs /
#      rdma-core is inside the container and that /dev/infiniband is mounted.
#    - "GDRDMA" in the channel lines ("via NET/IB/0/GDRDMA") -> GPUDirect RDMA
#      is on. Without it, traffic bounces through host memory.
# ---------------------------------------------------------------------------
grep -E "NET/IB|NET/Socket|GDRDMA|Using network" nccl_2node.log | sort | uniq -c | head -40

# ---------------------------------------------------------------------------
# 4. Pin the right devices explicitly (names from `ibstat` / `ibv_devices`):
#    NCCL_IB_HCA selects the RDMA NICs used for data;
#    NCCL_SOCKET_IFNAME only selects the interface for bootstrap/socket
#    traffic (use the management/Ethernet NIC, not docker0/lo).
#    RoCE: also set the GID index your fabric uses.
# ---------------------------------------------------------------------------
mpirun -np $NP -H "$HOSTS" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET \
  -x NCCL_IB_HCA="mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7" \
  -x NCCL_SOCKET_IFNAME="eth0" \
  ./build/all_reduce_perf -b 1G -e 8G -f 2 -g 1
#   RoCE only: add  -x NCCL_IB_GID_INDEX=3   (check with `show_gids`)

# ---------------------------------------------------------------------------
# 5. Check the hardware underneath
# ---------------------------------------------------------------------------
ibstat | grep -E "CA '|State|Rate"      # every port Active, expected rate (e.g. 400)
nvidia-smi topo -m                       # each GPU should have a NIC at PIX/PXB, not SYS
# GPUDirect RDMA kernel module:
lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "no peermem module loaded -> no GDR"
# PCIe ACS / IOMMU can force peer traffic through the root complex:
#   check `lspci -vvv | grep -i acsctl` (ACS should be off on the GPU<->NIC path)
#   and that the kernel isn't running with a translating IOMMU (iommu=pt or off).
# Per-link raw RDMA bandwidth, NIC by NIC (perftest), node1 <-> node2:
#   node2: ib_write_bw -d mlx5_0 --report_gbits
#   node1: ib_write_bw -d mlx5_0 --report_gbits node2
#   One slow or down link drags the whole ring down to its speed.

# ---------------------------------------------------------------------------
# 6. Common causes of "exactly half":
#    - only half the NICs used (NCCL_IB_HCA too narrow, 4 of 8 ports down, or
#      GPU<->NIC affinity wrong so two GPUs share one NIC)
#    - GDR off (no peermem) -> host bounce
#    - a link negotiated at half rate (200 vs 400 Gb/s), visible in ibstat
#    - RoCE without lossless config (PFC/ECN), or the wrong GID index
#    - measuring too-small messages: look at the plateau at >= 1 GB
# Re-run step 2 after each fix and compare the busbw plateau.
# ---------------------------------------------------------------------------
