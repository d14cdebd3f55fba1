#!/usr/bin/env bash
# nccl_bw_triage.sh — measure and triage low inter-node all-reduce bandwidth (2 x 8xH100).
# Run from a login/launch node that can mpirun onto both hosts. Adjust HOSTS and paths.
set -euo pipefail

HOSTS="node1:8,node2:8"
NP=16
NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests}

# ---------------------------------------------------------------------------
# 0. Build nccl-tests once (needs CUDA, NCCL and an MPI on both nodes).
# ---------------------------------------------------------------------------
if [ ! -x "$NCCL_TESTS/build/all_reduce_perf" ]; then
  git clone https://github.com/NVIDIA/nccl-tests.git "$NCCL_TESTS"
  make -C "$NCCL_TESTS" MPI=1 MPI_HOME="${MPI_HOME:-/usr/lib/x86_64-linux-gnu/openmpi}" \
       CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" NCCL_HOME="${NCCL_HOME:-/usr}"
fi

# ---------------------------------------------------------------------------
# 1. Baselines. Always get the single-node number first: if 8 GPUs on one box are
#    already slow, the problem is NVLink/NVSwitch/driver, not the network.
#    -b/-e/-f: 8 B .. 8 GB, doubling; -g 1: one GPU per MPI rank.
#    Look at the large-message busbw (the number nccl-tests normalises so it can
#    be compared with the hardware's per-GPU link bandwidth).
# ---------------------------------------------------------------------------
mpirun -np 8 -H node1:8 --bind-to numa \
  -x NCCL_DEBUG=WARN \
  "$NCCL_TESTS/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 | tee ar_1node.log

mpirun -np $NP -H $HOSTS --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  "$NCCL_TESTS/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 2>&1 | tee ar_2node.log

# ---------------------------------------------------------------------------
# 2. What transport did NCCL actually pick?  (from the INFO log above)
#    - "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ..."  -> good, list should show ALL 8 HCAs
#    - "NET/Socket"                                        -> fell back to TCP: IB not usable
#    - "GPU Direct RDMA Enabled" / "via NET/IB/x/GDRDMA"    -> GPUDirect RDMA in use
#      If channels show plain "via NET/IB/x" (no GDRDMA), traffic bounces through host memory.
# ---------------------------------------------------------------------------
grep -E "NET/IB : Using|NET/Socket|GPU Direct RDMA|GDRDMA|Channel [0-9]+/[0-9]+ :" ar_2node.log | head -40 || true

# ---------------------------------------------------------------------------
# 3. Host checks on BOTH nodes (the usual reasons for "exactly half"):
# ---------------------------------------------------------------------------
for h in node1 node2; do
  echo "=== $h ==="
  # all HCAs up at full rate (NDR = 400 Gb/s); a port at 200 or down halves the rails
  ssh "$h" 'ibstat | grep -E "CA |State:|Rate:"'
  # GPU <-> NIC affinity: each GPU should have a NIC behind the same PCIe switch (PIX/PXB)
  ssh "$h" 'nvidia-smi topo -m'
  # GPUDirect RDMA kernel module
  ssh "$h" 'lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "no peermem module -> no GDRDMA"'
  # PCIe link degraded (Gen5 x16 expected for H100 / CX-7)?
  ssh "$h" 'sudo lspci -vv 2>/dev/null | grep -E "LnkSta:" | sort | uniq -c'
  # ACS enabled on PCIe switches forces P2P through the root complex (bad for GDRDMA)
  ssh "$h" 'sudo lspci -vvv 2>/dev/null | grep -c "ACSCtl:.*SrcValid+" || true'
done

# ---------------------------------------------------------------------------
# 4. Raw fabric check, NIC pair by NIC pair, outside NCCL (perftest):
#      node2$ ib_write_bw -d mlx5_0 --report_gbits
#      node1$ ib_write_bw -d mlx5_0 --report_gbits node2
#    Each pair should be close to line rate. One slow pair = one bad cable/port/switch link.
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# 5. Common fixes once you know which case you're in:
#    - NCCL_IB_HCA unset (NCCL then uses every active HCA), or listing all 8 rails;
#      a stale NCCL_IB_HCA=mlx5_0 in a module/env file pins you to one NIC.
#    - NCCL_SOCKET_IFNAME only picks the bootstrap/TCP interface; set it to the mgmt
#      Ethernet (e.g. eth0 / ens*), it does not select IB rails.
#    - RoCE instead of IB: set NCCL_IB_GID_INDEX (usually 3 for RoCEv2), make sure
#      PFC/ECN are configured on the switches, and MTU 4096 on the ports.
#    - Load nvidia-peermem (or use DMA-BUF with a recent driver/NCCL) to get GDRDMA.
#    - Disable ACS / set IOMMU passthrough if topo shows P2P going through the CPU.
#    - Don't force NCCL_ALGO/NCCL_PROTO unless you've measured it; defaults are tuned.
#    Re-run step 1 after each change and compare large-message busbw.
# ---------------------------------------------------------------------------
