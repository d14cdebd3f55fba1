#!/usr/bin/env bash
# NCCL inter-node bandwidth runbook: 2 nodes x 8 H100.
# Goal: measure all_reduce busbw, find out which transport NCCL actually uses, fix the usual causes.
set -uo pipefail

HOSTS=${HOSTS:-node1:8,node2:8}

### 1. Baseline with nccl-tests ############################################################
# git clone https://github.com/NVIDIA/nccl-tests && cd nccl-tests && make MPI=1 MPI_HOME=/usr/mpi CUDA_HOME=/usr/local/cuda
# One process per GPU, sizes 8 B .. 8 GB. Read the *busbw* column (algorithm-independent),
# not algbw, and look at the large-message end (>= 1 GB).
mpirun -np 16 -H "$HOSTS" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 2>&1 | tee allreduce_2node.log
# Also run it on ONE node (-np 8 -H node1:8): if intra-node busbw is fine (NVLink, several
# hundred GB/s) and only 2-node is low, the problem is the network path, not the GPUs.

### 2. What to expect ########################################################################
# Compare the large-message busbw plateau with a reference for the SAME fabric: the vendor's
# acceptance numbers, or a known-good pair of nodes in the cluster. Per-rail raw bandwidth
# (ib_write_bw, step 4g) tells you what one NIC can do. "Half of expected" usually means half
# the rails are unused, traffic goes over TCP, or GPUDirect RDMA is off.

### 3. Read the INFO log #####################################################################
grep -E "NET/IB|NET/Socket|Using network|GPU Direct RDMA|GDRDMA|NCCL_IB|via NET" allreduce_2node.log | head -50
# Good:   "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ... [7]mlx5_7:1/IB"
#         channel lines ending in "via NET/IB/<n>/GDRDMA"
# Bad:    "NET/Socket : Using ..."                -> fell back to TCP: IB not found/not usable
#         only 1-4 mlx5 devices listed            -> rails missing (HCA filter, down ports)
#         "via NET/IB/<n>" without GDRDMA         -> no GPUDirect RDMA, traffic bounces via host memory

### 4. Fixes, in the order they usually matter ##############################################
# a) Transport: make sure IB is used. In containers pass the devices (--device=/dev/infiniband,
#    --cap-add=IPC_LOCK, ulimit -l unlimited) and ship the rdma-core userspace libs.
#    Do not leave NCCL_IB_DISABLE=1 set anywhere (env, /etc/nccl.conf, ~/.nccl.conf).
# b) All rails: list every HCA explicitly if auto-detection picks the wrong ones.
export NCCL_IB_HCA="=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"
#    (check names and state with `ibstat` / `ibv_devinfo`; all ports Active, right link rate)
# c) Bootstrap/OOB interface: NCCL_SOCKET_IFNAME only picks the TCP interface used for setup
#    (and for data only if it falls back to sockets). Point it at the real management NIC:
export NCCL_SOCKET_IFNAME="=eth0"
# d) GPUDirect RDMA: load nvidia_peermem (lsmod | grep nvidia_peermem) or use DMA-BUF
#    (recent drivers/kernels); leave NCCL_NET_GDR_LEVEL unset so NCCL chooses from the topology.
# e) RoCE instead of IB: set the right GID (NCCL_IB_GID_INDEX, often 3 for RoCEv2) and the
#    traffic class your switches expect (NCCL_IB_TC); check PFC/ECN on the switches.
# f) Topology/PCIe: nvidia-smi topo -m  -> each GPU should share a PCIe switch with "its" NIC (PIX).
#    Check ACS is disabled on the PCIe switches and IOMMU is off/passthrough; lspci -vv for
#    degraded link width/speed on HCAs.
# g) Fabric: ibdiagnet / perftest (ib_write_bw -d mlx5_0 --report_gbits between the nodes, per
#    rail) to rule out a bad cable, port or switch before blaming NCCL.

### 5. Re-measure ############################################################################
mpirun -np 16 -H "$HOSTS" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_IB_HCA -x NCCL_SOCKET_IFNAME \
  ./build/all_reduce_perf -b 1G -e 8G -f 2 -g 1 2>&1 | tee allreduce_2node_after.log
# Change one thing at a time and keep the logs; only once busbw is near the fabric ceiling
# look at training-framework settings (bucket sizes, overlap).
