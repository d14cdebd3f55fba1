#!/usr/bin/env bash
# Diagnosing low inter-node all-reduce bandwidth (2 nodes x 8x H100).
# Run the steps in order; each one either explains the gap or rules a cause out.
set -euo pipefail

HOSTS="node1:8,node2:8"      # adjust; one MPI rank per GPU

# ---------------------------------------------------------------------------------------
# 1. Measure properly with nccl-tests (https://github.com/NVIDIA/nccl-tests)
#    git clone https://github.com/NVIDIA/nccl-tests && cd nccl-tests
#    make MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr
# Read the *busbw* column at large sizes (>= 1 GB), not algbw: busbw already applies the
# 2(n-1)/n all-reduce factor and is what you compare with the hardware. Small messages are
# latency-bound and tell you nothing about bandwidth.
# ---------------------------------------------------------------------------------------
mpirun -np 16 -H "$HOSTS" --bind-to none \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH -x LD_LIBRARY_PATH \
  ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 2>&1 | tee allreduce_2node.log

# Baseline: the same test on ONE node. If single-node busbw is fine (NVLink/NVSwitch, several
# hundred GB/s on H100) the problem is the network path between nodes.
mpirun -np 8 -H node1:8 --bind-to none ./build/all_reduce_perf -b 1G -e 8G -f 2 -g 1

# What to expect across nodes: the inter-node part is bounded by the NICs. With 8x 400 Gb/s
# InfiniBand/RoCE NICs per node (typical DGX/HGX H100) that is ~8 x 50 GB/s raw; all-reduce busbw
# across 2 nodes usually lands well above what a single NIC could give. If you see roughly half,
# the usual suspects are: half the NICs unused, no GPUDirect RDMA, or traffic on the wrong fabric.

# ---------------------------------------------------------------------------------------
# 2. Read the NCCL_DEBUG=INFO output
# ---------------------------------------------------------------------------------------
grep -E "NET/|Using network|via NET|GDRDMA|NCCL_IB|Channel" allreduce_2node.log | head -50
#  - "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ..."  -> which HCAs NCCL picked; expect all of
#    the compute NICs (usually 8), not 4 and not the storage/management NIC.
#  - "NET/Socket" or "Using network Socket"               -> IB/RoCE not used at all: that alone
#    explains a large drop (check rdma-core/ibverbs in the container, /dev/infiniband mounted,
#    NCCL_IB_DISABLE not set).
#  - "via NET/IB/0/GDRDMA"                                -> GPUDirect RDMA in use. If the GDRDMA
#    suffix is missing, data is staged through host memory: load nvidia-peermem (or use a
#    DMA-BUF capable driver/kernel) and check ACS/IOMMU settings on the PCIe switches.

# ---------------------------------------------------------------------------------------
# 3. Pin the right interfaces
# ---------------------------------------------------------------------------------------
ibv_devinfo | grep -E "hca_id|state|active_mtu|link_layer"      # all ports PORT_ACTIVE, expected rate
ibstat | grep -E "Rate|State"                                   # 400 (NDR) not 200/100
# export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7   # compute NICs only
# export NCCL_SOCKET_IFNAME=eth0          # bootstrap/OOB interface only, not the data path
# RoCE only: export NCCL_IB_GID_INDEX=3  (RoCEv2 GID) and check PFC/ECN on the switches.

# ---------------------------------------------------------------------------------------
# 4. Topology / PCIe
# ---------------------------------------------------------------------------------------
nvidia-smi topo -m            # each GPU should have a NIC at PIX/PXB distance, not SYS
lspci -vvv 2>/dev/null | grep -E "LnkSta:" | sort | uniq -c   # look for downgraded x8 or Gen4 links
# NCCL_TOPO_DUMP_FILE=/tmp/topo.xml in the test env dumps what NCCL detected.

# ---------------------------------------------------------------------------------------
# 5. Raw fabric check without NCCL (perftest), one NIC pair at a time
# ---------------------------------------------------------------------------------------
#   node2$ ib_write_bw -d mlx5_0 --report_gbits
#   node1$ ib_write_bw -d mlx5_0 --report_gbits node2
#   add --use_cuda=0 to test GPU memory (GPUDirect) on both ends
# If perftest is also at half line rate, it is cabling/switch/firmware, not NCCL.

# Don't start by tuning NCCL_ALGO/NCCL_PROTO/NCCL_MIN_NCHANNELS; those rarely recover a 2x gap.
# Fix transport, NIC selection and GDR first, then re-run step 1 and compare busbw.
