#!/usr/bin/env bash
# nccl_busbw_check.sh -- measure inter-node all-reduce bandwidth on 2x 8xH100 and find out
# why it's half of what you expect. Run from a login node that can ssh/mpirun to both hosts.
#
#   ./nccl_busbw_check.sh node01 node02
#
# What "expected" means: nccl-tests reports algbw and busbw; busbw is the one to compare
# with hardware, because it's corrected for the number of ranks (for all_reduce:
# busbw = algbw * 2*(n-1)/n). For 2 nodes the bottleneck is the network, so the ceiling is
# roughly the per-node NIC bandwidth: 8x 400 Gb/s NDR ~ 400 GB/s line rate, ~350-380 GB/s busbw
# in practice at large message sizes; 8x 200 Gb/s HDR ~ half that. If you see exactly half,
# the usual suspects are: half the NICs in use, GPUDirect RDMA off, IB falling back to TCP
# sockets (then it's far less than half), or a PCIe/ACS problem between GPU and NIC.
set -euo pipefail

NODE_A=${1:?first host}
NODE_B=${2:?second host}
NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests}

# --- 0. build nccl-tests with MPI (once) ------------------------------------------------
if [[ ! -x $NCCL_TESTS/build/all_reduce_perf ]]; then
  git clone https://github.com/NVIDIA/nccl-tests.git "$NCCL_TESTS"
  make -C "$NCCL_TESTS" -j MPI=1 MPI_HOME="${MPI_HOME:-/usr/mpi/gcc/openmpi}" \
       CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" NCCL_HOME="${NCCL_HOME:-/usr}"
fi

printf '%s slots=8\n%s slots=8\n' "$NODE_A" "$NODE_B" > hostfile

# --- 1. intra-node baseline: is NVLink fine? ---------------------------------------------
# Expect busbw in the several-hundred GB/s range on one H100 node (NVLink/NVSwitch).
mpirun -np 8 -H "$NODE_A":8 "$NCCL_TESTS/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 \
  | tee intra_${NODE_A}.txt

# --- 2. inter-node run with transport logging ---------------------------------------------
# NCCL_DEBUG=INFO prints which transport every channel uses. Look for:
#   "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ..."   -> should list all 8 compute NICs
#   "GPU Direct RDMA Enabled for ..."                      -> GDR on
#   "NET/Socket"                                            -> fell back to TCP: misconfigured IB
mpirun -np 16 --hostfile hostfile --map-by ppr:8:node --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  -x LD_LIBRARY_PATH \
  "$NCCL_TESTS/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 -n 50 -w 10 \
  2>&1 | tee inter.txt

echo "== transports seen =="
grep -E "NET/IB : Using|NET/Socket|GPU Direct RDMA|via NET/IB/.+/GDRDMA" inter.txt | sort | uniq -c | head -40

# --- 3. host checks (run on both nodes) --------------------------------------------------
for h in "$NODE_A" "$NODE_B"; do
  echo "== $h =="
  ssh "$h" 'ibstat | grep -E "CA |State|Rate" ;            # all 8 ports Active, expected Rate (400 = NDR)
            lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "!! no peermem module: GDR off";
            nvidia-smi topo -m | head -20;                   # each GPU should be PIX/PXB to "its" NIC, not SYS
            lspci -vvv 2>/dev/null | grep -c "ACSCtl:.*SrcValid+" || true'   # ACS enabled on PCIe switches hurts P2P/GDR
done

# --- 4. common fixes, try one at a time and re-run step 2 ------------------------------
# a) Only some NICs used (e.g. NCCL_IB_HCA set to mlx5_0,mlx5_1 in a module file):
#      export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7   # compute NICs only
#    and exclude storage/management ports (NCCL_IB_HCA=^mlx5_8,mlx5_9 style).
# b) Bootstrap/OOB on the wrong interface (symptom: slow init, sometimes Socket transport):
#      export NCCL_SOCKET_IFNAME=ens   # or the right prefix; =^docker,lo to exclude
# c) GDR off: load nvidia_peermem (modprobe nvidia_peermem) or use dma-buf with a recent driver;
#    then the log shows GDRDMA on the NET lines.
# d) RoCE instead of IB: set NCCL_IB_GID_INDEX to the RoCEv2 GID (show_gids) and check PFC/ECN.
# e) Topology/affinity: wrong NUMA binding or ACS on -> disable ACS in BIOS / setpci, bind ranks
#    to the NUMA node of their GPU (--bind-to numa above).
# Don't hand-tune NCCL_ALGO / NCCL_PROTO / channel counts until the transport and NIC count are right;
# those knobs rarely explain a clean 2x gap.

echo "== peak busbw (largest sizes) =="
awk '/^ +[0-9]+ +[0-9]+ +float/ {print $1, $(NF-1)}' inter.txt | tail -5
