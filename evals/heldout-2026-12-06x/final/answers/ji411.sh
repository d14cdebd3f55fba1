#!/usr/bin/env bash
# NCCL inter-node bandwidth triage for 2 x 8xH100.
# This has nothing to do with CUDA graphs or any training framework setting: first prove what
# the fabric + NCCL deliver on their own, then fix what's wrong.
set -euo pipefail

HOSTS=${HOSTS:-"node1:8,node2:8"}
NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests}

echo "== 0. Build nccl-tests (once) =="
# git clone https://github.com/NVIDIA/nccl-tests.git "$NCCL_TESTS"
# make -C "$NCCL_TESTS" MPI=1 MPI_HOME=/usr/mpi CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr

echo "== 1. Intra-node baseline on each node (NVLink only) =="
# If a single node is already low, the problem is NVLink/NVSwitch/driver, not the network.
for h in node1 node2; do
  ssh "$h" "$NCCL_TESTS/build/all_reduce_perf -b 1G -e 8G -f 2 -g 8"
done

echo "== 2. Inter-node all-reduce, 16 ranks, one GPU per rank =="
# Read the busbw column at large message sizes (>= 1 GB), not algbw. busbw = algbw * 2(n-1)/n
# is the number nccl-tests intends you to compare with hardware peak. Half of what you expect
# usually means half the NICs are idle, NCCL fell back to TCP sockets, or GPUDirect RDMA is off.
mpirun -np 16 -H "$HOSTS" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  -x LD_LIBRARY_PATH \
  "$NCCL_TESTS/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 2>&1 | tee allreduce_16.log

echo "== 3. What transport did NCCL pick? =="
grep -E "NET/(IB|Socket)|Using network" allreduce_16.log | sort | uniq -c | head
#  - "NET/Socket" / "Using network Socket" => no IB/RoCE plugin in use: install rdma-core / the NCCL
#    net plugin, check NCCL_IB_DISABLE is not set.
grep -E "GDRDMA|via NET" allreduce_16.log | head
#  - channels "via NET/IB/<n>/GDRDMA" => GPUDirect RDMA is on. Without GDRDMA every transfer
#    bounces through host memory.
grep -E "NET/IB : Using" allreduce_16.log | head -2
#  - lists the HCAs NCCL found; on these nodes there should be one NIC per GPU (e.g. mlx5_0..7).

echo "== 4. Host-side checks =="
for h in node1 node2; do
  ssh "$h" '
    ibstat | grep -E "CA |State|Rate"            # every port Active, at the expected rate (e.g. 400)
    lsmod | grep -E "nvidia_peermem" || echo "nvidia_peermem not loaded (GDR needs it or dmabuf)"
    nvidia-smi topo -m                           # each GPU should have a NIC at PIX/PXB, not SYS
  '
done

echo "== 5. Fabric without NCCL (per NIC pair) =="
# ib_write_bw from perftest isolates the network from NCCL:
#   node2$ ib_write_bw -d mlx5_0 --report_gbits
#   node1$ ib_write_bw -d mlx5_0 --report_gbits node2
# Near line rate here but low NCCL busbw => NCCL config/topology. Low here too => cabling,
# switch, port speed, PCIe (ACS on, link width/gen) or firmware.

echo "== 6. Knobs that commonly fix 'half bandwidth' =="
cat <<'TIPS'
NCCL_IB_HCA=mlx5_0,mlx5_1,...,mlx5_7   # make sure all compute NICs are used (exclude storage/mgmt NICs)
NCCL_SOCKET_IFNAME=<iface>             # bootstrap (and the socket transport if IB is not used); wrong value = failed/slow init
NCCL_IB_GID_INDEX=3                    # RoCE only: pick the RoCEv2 GID
NCCL_NET_GDR_LEVEL=PHB (or SYS)        # only if GDR is disabled because of topology distance
Disable PCIe ACS on switches between GPUs and NICs; check BIOS/IOMMU passthrough.
Unset any NCCL_IB_DISABLE=1, NCCL_P2P_DISABLE=1, NCCL_NET=Socket left over from debugging.
TIPS
echo "Re-run step 2 after each change and compare busbw at the largest sizes."
