#!/usr/bin/env bash
# NCCL all-reduce bandwidth runbook: 2 nodes x 8 H100.
# Usage: HOSTS="node1,node2" ./nccl_bw_runbook.sh
# Compare *busbw* (not algbw) against hardware: busbw is the number nccl-tests normalizes so it
# can be compared with link/NIC peak, independent of rank count.
set -euo pipefail
HOSTS=${HOSTS:?set HOSTS=node1,node2}
NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests}

echo "== 0. build nccl-tests with MPI (once) =="
# git clone https://github.com/NVIDIA/nccl-tests.git $NCCL_TESTS
# make -C $NCCL_TESTS MPI=1 MPI_HOME=/usr/local/mpi CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr

echo "== 1. single-node baseline (NVLink/NVSwitch only) =="
# If this is already low, the problem is inside the node, not the network.
$NCCL_TESTS/build/all_reduce_perf -b 8 -e 8G -f 2 -g 8

echo "== 2. two-node run, 1 GPU per rank, large messages =="
# Look at busbw on the 1G-8G rows; small sizes are latency-bound and say nothing about bandwidth.
mpirun -np 16 -H "${HOSTS//,/:8,}:8" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET \
  -x LD_LIBRARY_PATH \
  $NCCL_TESTS/build/all_reduce_perf -b 64M -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

echo "== 3. which transport did NCCL pick? =="
# Want: 'NET/IB' (InfiniBand or RoCE), and channels 'via NET/IB/<n>/GDRDMA'.
# 'NET/Socket' = TCP fallback (expect far below half of peak).
# IB without GDRDMA = GPUDirect RDMA off; traffic bounces through host memory.
grep -E "NET/(IB|Socket)|GDRDMA|Using network" nccl_2node.log | sort | uniq -c | head -40
# Count distinct HCAs used; 8 NICs per node should all appear (mlx5_0 .. mlx5_N).
grep -oE "mlx5_[0-9]+" nccl_2node.log | sort -u

echo "== 4. host checks (run on every node) =="
ibstat | grep -E "CA '|State|Rate"        # all ports Active, expected rate (e.g. 400)
lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "WARN: no peermem module (GDR needs it or dmabuf)"
nvidia-smi topo -m                          # each GPU should have a NIC at PIX/PXB, not SYS
# PCIe ACS on switches breaks GPU<->NIC P2P; should show 'ACSCtl: SrcValid-' etc.
sudo lspci -vvv 2>/dev/null | grep -E "ACSCtl" | sort | uniq -c || true

echo "== 5. raw NIC check, outside NCCL (perftest) =="
# server on node1: ib_write_bw -d mlx5_0 --report_gbits
# client on node2: ib_write_bw -d mlx5_0 --report_gbits node1
# Each NIC pair should reach close to line rate; repeat per HCA to find a slow link.

cat <<'NOTES'
== Common causes of "half the expected busbw" ==
- NCCL only using some of the NICs: unset/incorrect NCCL_IB_HCA. Either leave it unset or
  list every HCA (e.g. NCCL_IB_HCA=mlx5_0,mlx5_1,...); exclude storage/management NICs with '^'.
- GPUDirect RDMA not active (no GDRDMA in the log): load nvidia_peermem (or use dmabuf),
  disable PCIe ACS, check IOMMU settings.
- A port negotiated at lower speed or a bad cable: ibstat rate / ib_write_bw per NIC.
- RoCE: wrong NCCL_IB_GID_INDEX, or no PFC/ECN (lossy fabric -> retransmits).
- NCCL_SOCKET_IFNAME only picks the bootstrap interface; it does not select data NICs
  for IB, but a wrong value can break startup or force the socket transport.
- Rank placement: make sure 8 ranks per node (-H node1:8,node2:8) with sane NUMA binding.
Re-run step 2 after each change and compare busbw at 1G-8G.
NOTES
