#!/usr/bin/env bash
# nccl_triage.sh: measure all-reduce bandwidth between two 8xH100 nodes and find why it is low.
# Run from a login node that can ssh/mpirun to both nodes. Edit HOSTS and the NIC names.
# This is NCCL/fabric tuning only; nothing in the training framework needs to change.
set -euo pipefail
HOSTS=${HOSTS:-node1:8,node2:8}
NT=${NT:-$HOME/nccl-tests}

echo "== step 1: build nccl-tests (MPI build, one process per GPU) =="
[ -x "$NT/build/all_reduce_perf" ] || {
  git clone https://github.com/NVIDIA/nccl-tests.git "$NT"
  make -C "$NT" MPI=1 MPI_HOME="${MPI_HOME:-/usr/lib/x86_64-linux-gnu/openmpi}" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
}

echo "== step 2: single-node baseline (NVLink only) on each node =="
# If one node alone is already slow, it is not the network: check nvidia-smi topo -m / NVLink.
for h in ${HOSTS//,/ }; do
  mpirun -np 8 -H "$h" -x NCCL_DEBUG=WARN "$NT/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 | tail -4
done

echo "== step 3: two-node run with transport logging =="
# Read the *busbw* column at the largest sizes (1-8 GB). busbw = algbw * 2(n-1)/n is the number
# you compare with the hardware; algbw is smaller by design and is NOT 'half the bandwidth'.
mpirun -np 16 -H "$HOSTS" --bind-to none \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  -x NCCL_IB_HCA="${NCCL_IB_HCA:-mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7}" \
  -x NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-eth0}" \
  "$NT/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

echo "== step 4: what the log says =="
grep -m3 -E "NET/IB|NET/Socket|NET/Plugin" nccl_2node.log || true
#   NET/Socket ...        -> IB not used at all: the fix is getting IB visible (container needs
#                            /dev/infiniband + host networking/IPC; NCCL_IB_DISABLE must be unset)
#   NET/IB : Using [0]mlx5_0:1/IB ... only 1-2 devices listed
#                         -> NCCL_IB_HCA is wrong or some HCAs are down: use all 8 rails
#   NET/IB ... /RoCE      -> RoCE: set NCCL_IB_GID_INDEX (often 3) and check PFC/ECN on the switch
grep -m4 -E "GDRDMA|GPU Direct RDMA" nccl_2node.log || echo "no GPUDirect RDMA lines -> load nvidia_peermem (or use DMA-BUF) and check NCCL_NET_GDR_LEVEL"
grep -m3 "Channel" nccl_2node.log || true

echo "== step 5: fabric checks outside NCCL =="
ibstat | grep -E "CA '|State|Rate" || true     # every port Active at its full rate (e.g. 400 Gb/s NDR)?
nvidia-smi topo -m                              # each GPU next to its own NIC (PIX/PXB), not across the CPU socket (SYS)?
# raw link test, GPU-less, between the two nodes on one HCA:
#   node2$ ib_write_bw -d mlx5_0 --report_gbits
#   node1$ ib_write_bw -d mlx5_0 --report_gbits node2
# Also check: PCIe ACS disabled on the switches between GPU and NIC (ACS forces P2P through the
# root complex and roughly halves GDR bandwidth), IOMMU passthrough, and that the NCCL version
# matches on both nodes (NCCL INFO prints it).

echo "== step 6: after fixing, rerun step 3 and compare busbw with your fabric's expected figure =="
# Typical causes of exactly 'half': half of the HCAs unused (NCCL_IB_HCA / down ports), no GPUDirect
# RDMA (traffic bounces through host memory), ACS on, or GPU-NIC affinity across sockets.
