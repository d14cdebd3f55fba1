#!/usr/bin/env bash
# nccl_2node_check.sh: measure all-reduce bandwidth between two 8xH100 nodes and
# collect what's needed to explain a low number.
#
# Usage:  ./nccl_2node_check.sh node-a node-b
# Needs:  nccl-tests built with MPI=1 (make MPI=1 MPI_HOME=... CUDA_HOME=... NCCL_HOME=...)
set -euo pipefail

A=${1:?node A}; B=${2:?node B}
NT=${NCCL_TESTS:-$HOME/nccl-tests/build}
NRANKS=16                       # 2 nodes x 8 GPUs, one rank per GPU
NIC_GBPS=${NIC_GBPS:-400}       # per-NIC line rate, Gb/s (NDR = 400)
NICS_PER_NODE=${NICS_PER_NODE:-8}
OUT=nccl-check-$(date +%Y%m%d-%H%M); mkdir -p "$OUT"

# 1) Intra-node baseline on each node: isolates NVLink/NVSwitch from the network.
for h in "$A" "$B"; do
  ssh "$h" "$NT/all_reduce_perf -b 1G -e 8G -f 2 -g 8" > "$OUT/intra-$h.log"
done

# 2) Inter-node all-reduce with transport logging.
mpirun -np $NRANKS -N 8 -H "$A:8,$B:8" --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  -x NCCL_IB_HCA="${NCCL_IB_HCA:-mlx5}" \
  -x NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-^lo,docker}" \
  "$NT/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 -n 50 -w 10 > "$OUT/inter.log" 2>&1

# 3) Which transport did NCCL pick? "NET/IB" + "GDRDMA" is what you want.
#    "NET/Socket" means IB wasn't used at all: check NCCL_IB_HCA, rdma-core, container devices.
grep -E "NET/(IB|Socket)|GDRDMA|Using network|NCCL_IB_HCA" "$OUT/inter.log" | sort -u | head -20 > "$OUT/transport.txt"

# 4) Bus bandwidth at the largest size, compared with what the fabric can deliver.
#    nccl-tests prints algbw = bytes / time; for all-reduce the per-link bus bandwidth is
#    busbw = algbw * (n-1)/n, which is what you compare to the node's NIC line rate.
ALGBW=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {last=$7} END{print last}' "$OUT/inter.log")   # out-of-place algbw, GB/s
BUSBW=$(python3 -c "n=$NRANKS; print(round($ALGBW*(n-1)/n, 1))")
PEAK_NODE=$(python3 -c "print($NIC_GBPS/8*$NICS_PER_NODE)")

# 5) Per-NIC sanity with perftest (run ib_write_bw -d mlx5_0 on B first).
echo "run on $B: ib_write_bw -d mlx5_0 --report_gbits -a   then on $A: ib_write_bw -d mlx5_0 --report_gbits -a $B" > "$OUT/perftest.txt"

# 6) Topology: each GPU should share a PCIe switch (PIX/PXB) with its NIC, not cross the CPU (SYS/NODE).
nvidia-smi topo -m > "$OUT/topo.txt"

cat <<REPORT | tee "$OUT/REPORT.txt"
== NCCL 2-node all-reduce check ($A, $B) ==
largest-size algbw  : ${ALGBW} GB/s
computed busbw      : ${BUSBW} GB/s
node NIC line rate  : ${PEAK_NODE} GB/s (${NICS_PER_NODE} x ${NIC_GBPS} Gb/s)
transport lines     : $(wc -l < "$OUT/transport.txt") (see transport.txt)

How to read this:
 * computed busbw well below ~80-90% of the node NIC line rate (${PEAK_NODE} GB/s) -> the fabric path is the bottleneck:
     - transport.txt shows NET/Socket       -> IB not used (NCCL_IB_HCA, /dev/infiniband in container)
     - NET/IB but no GDRDMA                  -> GPUDirect RDMA off: load nvidia_peermem, check NCCL_NET_GDR_LEVEL
     - topo.txt shows GPU<->NIC as SYS/NODE  -> traffic crosses the CPU; fix NIC/GPU affinity, disable PCIe ACS
     - ib_write_bw per NIC << line rate      -> cabling/switch/port speed problem (ibstat: Rate 400)
 * intra-node logs (intra-*.log) should show ~NVLink-class busbw; if those are low too, it's not the network.
REPORT
