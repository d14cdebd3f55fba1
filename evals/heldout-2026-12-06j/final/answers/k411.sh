#!/usr/bin/env bash
# nccl_bw_check.sh: measure and triage inter-node all-reduce bandwidth (2 x 8xH100)
#
# Usage:  HOSTS=node01,node02 ./nccl_bw_check.sh
# Needs:  nccl-tests built with MPI=1 (see section 1), passwordless ssh/mpirun between nodes.
#
# How to read the results
#   nccl-tests prints algbw (= size / time) and busbw (= algbw * 2(n-1)/n for all_reduce).
#   busbw is the one to compare with hardware peak, independent of rank count (doc/PERFORMANCE.md).
#   Look at the LARGE message sizes (>= 1 GiB); small sizes are latency-bound.
#   Single-node busbw reflects NVLink/NVSwitch; 2-node busbw is capped by the network
#   (per-GPU NIC rails). Compare the 2-node number with your fabric's acceptance/vendor figure.
set -euo pipefail

HOSTS=${HOSTS:?set HOSTS=node01,node02}
NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests}
OUT=${OUT:-./nccl_bw_$(date +%Y%m%d_%H%M%S)}
mkdir -p "$OUT"

banner() { echo; echo "==================== $* ===================="; }

# ---------------------------------------------------------------------------
banner "1. build nccl-tests (MPI=1 is required for multi-node runs)"
if [[ ! -x $NCCL_TESTS/build/all_reduce_perf ]]; then
  git clone https://github.com/NVIDIA/nccl-tests.git "$NCCL_TESTS"
  make -C "$NCCL_TESTS" MPI=1 MPI_HOME=${MPI_HOME:-/usr/lib/x86_64-linux-gnu/openmpi} \
       CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} NCCL_HOME=${NCCL_HOME:-/usr} -j
fi

# ---------------------------------------------------------------------------
banner "2. node health: NICs, links, GPU<->NIC topology, GPUDirect RDMA module"
for h in ${HOSTS//,/ }; do
  echo "--- $h"
  ssh "$h" 'ibstat | egrep "CA |State|Rate|Link layer"' | tee -a "$OUT/ibstat.txt"  # all 8 compute HCAs Active at 400?
  ssh "$h" 'nvidia-smi topo -m' > "$OUT/topo_$h.txt"                             # each GPU should have a PIX/PXB NIC
  ssh "$h" 'lsmod | egrep "nvidia_peermem|nv_peer_mem" || echo "NO peermem module -> no GPUDirect RDMA"'
done

# ---------------------------------------------------------------------------
banner "3. single-node baseline (NVLink only) on the first host"
FIRST=${HOSTS%%,*}
ssh "$FIRST" "$NCCL_TESTS/build/all_reduce_perf -b 8 -e 8G -f 2 -g 8" | tee "$OUT/allreduce_1node.txt"

# ---------------------------------------------------------------------------
banner "4. two-node all_reduce, 16 ranks (one process per GPU), with transport logging"
# NCCL_SOCKET_IFNAME: bootstrap/OOB interface (the mgmt/ethernet NIC name on your nodes)
# NCCL_IB_HCA:        restrict to the compute HCAs; make sure ALL 8 rails are listed
mpirun -np 16 -H "${HOSTS//,/:8,}:8" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET \
  -x NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-eth0} \
  -x NCCL_IB_HCA=${NCCL_IB_HCA:-mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7} \
  -x LD_LIBRARY_PATH \
  "$NCCL_TESTS/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 -n 50 -w 10 \
  2>&1 | tee "$OUT/allreduce_2node.txt"

# ---------------------------------------------------------------------------
banner "5. triage from the log"
LOG="$OUT/allreduce_2node.txt"
grep -m1 "Using network" "$LOG" || true          # want: Using network IB   (Socket = TCP fallback, far slower)
echo "channels over IB with GPUDirect RDMA: $(grep -c 'via NET/IB/.*GDRDMA' "$LOG" || true)"
echo "channels over IB without GDRDMA:      $(grep 'via NET/IB/' "$LOG" | grep -vc GDRDMA || true)"
echo "distinct NICs used:"; grep -o 'via NET/IB/[0-9]*' "$LOG" | sort | uniq -c
echo "largest sizes (size count type redop root time algbw busbw ...):"
grep -E '^ +[0-9]+' "$LOG" | tail -4

cat <<'TXT'

Interpretation / fixes
  * "Using network Socket"            -> IB not picked up: check NCCL_IB_HCA names, rdma-core/libibverbs in the
                                          container, --device=/dev/infiniband, and ulimit -l unlimited.
  * channels without /GDRDMA          -> load nvidia-peermem; on bare metal check PCIe ACS is disabled on the switches
                                          between GPU and NIC (ACS forces P2P through the root complex).
  * only 4 distinct NICs in use       -> classic "half bandwidth": NCCL_IB_HCA list / rail naming wrong, or
                                          some ports Down/at lower rate in ibstat.
  * RoCE instead of IB                -> set NCCL_IB_GID_INDEX to the RoCEv2 GID (show_gids), check PFC/ECN
                                          and MTU 4096 on the switches.
  * 1-node busbw also low             -> not the network: NVLink/NVSwitch/fabric manager or GPU clocks.
  * everything clean but still ~50%   -> run ib_write_bw between matching NICs (GPU 0 NIC <-> GPU 0 NIC) to
                                          isolate a bad cable/port/switch hop; compare each rail.
Re-run section 4 after each change and compare busbw at 1-8 GiB.
TXT
