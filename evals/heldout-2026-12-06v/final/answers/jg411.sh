#!/usr/bin/env bash
# nccl_2node_check.sh -- measure inter-node all-reduce bandwidth on 2 x 8xH100 and
# collect what you need to find out why it's low.
#
# Usage: ./nccl_2node_check.sh node1 node2
# Needs: nccl-tests built with MPI=1 (make MPI=1 MPI_HOME=... CUDA_HOME=...),
#        passwordless ssh between the nodes, and the same NCCL/CUDA on both.
set -euo pipefail

N1=${1:?node1}; N2=${2:?node2}
NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests/build}
OUT=nccl-check-$(date +%Y%m%d-%H%M%S); mkdir -p "$OUT"

# --- 1. Fabric sanity on each node (ports up, at full rate, GPUDirect RDMA module loaded)
for h in "$N1" "$N2"; do
  echo "== $h ==" | tee -a "$OUT/fabric.txt"
  ssh "$h" 'ibstat | grep -E "CA |State|Rate"; lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "!! no peermem module: GPUDirect RDMA off"; nvidia-smi topo -m' \
    | tee -a "$OUT/fabric.txt"
done

# --- 2. Single-node baseline (NVLink only): if this is also low, the network isn't the problem
mpirun -np 8 -H "$N1:8" -x NCCL_DEBUG=WARN \
  "$NCCL_TESTS/all_reduce_perf" -b 1G -e 8G -f 2 -g 1 | tee "$OUT/intra.txt"

# --- 3. Two-node run with transport logging
mpirun -np 16 -H "$N1:8,$N2:8" \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET \
  -x LD_LIBRARY_PATH \
  "$NCCL_TESTS/all_reduce_perf" -b 8M -e 8G -f 2 -g 1 2>&1 | tee "$OUT/inter.txt"

# --- 4. Transport check: you want NET/IB on every HCA and GDRDMA, not NET/Socket
grep -E "NET/IB|NET/Socket|GDRDMA|Using network" "$OUT/inter.txt" | sort | uniq -c | head -40

# --- 5. Read the result
# Compare the *algbw* column of the large sizes (1G-8G) against the link speed:
# algbw = bytes / time is what the collective actually delivers. busbw multiplies that by
# 2*(n-1)/n, about 1.9x for 16 ranks, so it comes out inflated and isn't comparable to the
# hardware peak. With 8 x 400 Gb/s NDR per node, algbw for big messages should get close to
# the node's aggregate NIC bandwidth; if it sits around half of that, look at the
# transport lines above.
awk '$1 ~ /^[0-9]+$/ && $1 >= 1073741824 {printf "size=%s  algbw=%s GB/s\n", $1, $7}' "$OUT/inter.txt"

# Typical causes when it's ~half:
#  - NET/Socket instead of NET/IB   -> IB libs/devices missing in the container, or NCCL_IB_DISABLE=1
#  - only some HCAs used            -> set NCCL_IB_HCA=mlx5_0,mlx5_1,... (the compute NICs only)
#  - no GDRDMA                      -> load nvidia_peermem, check ACS is disabled on PCIe switches
#  - wrong interface for bootstrap  -> NCCL_SOCKET_IFNAME=<mgmt iface> (affects setup, not data)
#  - RoCE                           -> NCCL_IB_GID_INDEX, PFC/ECN configured on the switches
echo "results in $OUT/"
