#!/usr/bin/env bash
# Fleet fix for "inter-node all-reduce busbw is half of expected" on two 8xH100 nodes.
# Run from the login/admin host. pdsh fans each command out to both nodes.
set -euo pipefail
NODES=node1,node2

# --- 1. measure: nccl-tests, 16 ranks, look at busbw for >= 1 GB messages --------------------
# (build once: make MPI=1 MPI_HOME=... CUDA_HOME=... NCCL_HOME=... in nccl-tests)
mpirun -np 16 -H node1:8,node2:8 --bind-to none \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET \
  ./nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 | tee busbw_before.log
# Expect ~350-400 GB/s busbw at 8G with 8x400G NDR rails per node. Half of that means a transport or rail problem.

# --- 2. inspect the fabric on every node ---------------------------------------------------
pdsh -w "$NODES" 'ibstat | grep -E "CA |State|Rate"'                 # all ports Active, Rate 400
pdsh -w "$NODES" 'lsmod | grep -E "nvidia_peermem|ib_core" || echo MISSING'
pdsh -w "$NODES" 'nvidia-smi topo -m | head -20'                     # GPU<->NIC should be PIX/PXB
grep -E "NET/IB|NET/Socket|GDRDMA" busbw_before.log | sort | uniq -c  # which transport was used

# --- 3. fixes -------------------------------------------------------------------------------
pdsh -w "$NODES" 'sudo modprobe nvidia-peermem'                      # GPUDirect RDMA
# PCIe ACS must be off on the GPU<->NIC switches and the IOMMU in passthrough: follow your
# server vendor's procedure (BIOS setting or setpci on the PLX bridges), then reboot.

cat > nccl_env.sh <<'ENV'
# NCCL environment for the two-node job
export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7   # all 8 compute rails
export NCCL_SOCKET_IFNAME=eth0         # bootstrap traffic on the management NIC
export NCCL_IB_DISABLE=1               # stop NCCL from probing the IPoIB socket path; go straight to verbs
ENV
pdcp -w "$NODES" nccl_env.sh /etc/profile.d/nccl_env.sh

# --- 4. re-measure ---------------------------------------------------------------------------
source nccl_env.sh
mpirun -np 16 -H node1:8,node2:8 --bind-to none \
  -x NCCL_DEBUG=INFO -x NCCL_IB_HCA -x NCCL_SOCKET_IFNAME -x NCCL_IB_DISABLE \
  ./nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 | tee busbw_after.log
# Done when large-message busbw is within ~10% of the fabric's line rate on repeated runs.
