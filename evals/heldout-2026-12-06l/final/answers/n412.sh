#!/usr/bin/env bash
# nccl_bw_check.sh — measure and triage inter-node all-reduce bandwidth (2 nodes x 8 H100)
# Usage: HOSTS=node1,node2 ./nccl_bw_check.sh
set -euo pipefail
HOSTS=${HOSTS:?set HOSTS=node1,node2}
NT=${NT:-$HOME/nccl-tests}

banner() { echo; echo "=================== $* ==================="; }

banner "1. build nccl-tests (once)"
if [ ! -x "$NT/build/all_reduce_perf" ]; then
  git clone https://github.com/NVIDIA/nccl-tests "$NT"
  make -C "$NT" MPI=1 MPI_HOME=${MPI_HOME:-/usr/mpi/gcc/openmpi} CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
fi

banner "2. per-node sanity: NICs, GPU<->NIC topology, peer-memory module"
for h in ${HOSTS//,/ }; do
  echo "--- $h"
  ssh "$h" 'ibstat | grep -E "CA |State|Rate" ; nvidia-smi topo -m | head -20 ; lsmod | grep -E "nvidia_peermem|nv_peer_mem" || echo "!! no GPUDirect RDMA module loaded"'
done

banner "3. single-node baseline (NVLink) on the first host"
first=${HOSTS%%,*}
mpirun -np 8 -H "$first:8" "$NT/build/all_reduce_perf" -b 1G -e 8G -f 2 -g 1

banner "4. two-node all-reduce with transport logging"
export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,NET
# list ALL compute HCAs; leaving some out (or picking the storage NIC) halves bandwidth
export NCCL_IB_HCA=${NCCL_IB_HCA:-mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7}
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-^docker0,lo}
mpirun -np 16 -N 8 -H "${HOSTS//,/:8,}:8" --bind-to numa \
  -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS -x NCCL_IB_HCA -x NCCL_SOCKET_IFNAME -x LD_LIBRARY_PATH \
  "$NT/build/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 2>&1 | tee allreduce_2node.log

banner "5. what did NCCL use?"
grep -E "NET/IB|NET/Socket|GPU Direct RDMA|Using network" allreduce_2node.log | sort -u | head -20
cat <<'NOTE'
How to read it:
  * busbw (not algbw) is the number to compare with hardware. For all-reduce,
    busbw = algbw * 2*(n-1)/n (nccl-tests doc/PERFORMANCE.md), so with 16 ranks busbw ~ 1.9 x algbw.
  * Compare large-message busbw with the per-GPU NIC rate (400 Gb/s ConnectX-7 ~ 50 GB/s per GPU).
  * "NET/Socket" instead of "NET/IB"         -> IB/RoCE not usable in this env (drivers, container devices, IPC_LOCK).
  * no "GPU Direct RDMA" on the NET lines    -> load nvidia-peermem, check ACS/IOMMU.
  * fewer NICs in use than GPUs per node      -> fix NCCL_IB_HCA / dead ports (ibstat).
  * GPU and NIC on different sockets ("SYS")  -> fix rank/NIC affinity or topology.
  * RoCE: also set NCCL_IB_GID_INDEX (often 3) and check PFC/ECN on the switches.
  * Confirm the raw fabric with ib_write_bw between the hosts if NCCL still looks low.
NOTE
