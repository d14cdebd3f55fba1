#!/usr/bin/env bash
# Inter-node NCCL bandwidth triage for 2 x 8xH100.
# Run from a login/launch node that can mpirun onto both hosts. Adjust HOSTS, HCAs, paths.
set -euo pipefail

HOSTS=${HOSTS:-node1:8,node2:8}
NCCL_TESTS=${NCCL_TESTS:-$HOME/nccl-tests/build}

echo "== 0. build nccl-tests once (MPI build, one process per GPU)"
# git clone https://github.com/NVIDIA/nccl-tests && cd nccl-tests
# make MPI=1 MPI_HOME=/usr/mpi/gcc/openmpi-* CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr

echo "== 1. single-node baseline (NVLink only): shows what one node can do"
mpirun -np 8 -H "${HOSTS%%,*}" \
  "$NCCL_TESTS/all_reduce_perf" -b 8 -e 8G -f 2 -g 1

echo "== 2. two-node run with transport logging"
# busbw (not algbw) is the column to compare with hardware bandwidth: nccl-tests already
# applies the 2(n-1)/n all-reduce factor, so it doesn't depend on the rank count.
mpirun -np 16 -H "$HOSTS" --map-by ppr:8:node --bind-to numa \
  -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
  -x LD_LIBRARY_PATH \
  "$NCCL_TESTS/all_reduce_perf" -b 8 -e 8G -f 2 -g 1 2>&1 | tee nccl_2node.log

echo "== 3. what to read in that log"
grep -E "NET/IB|NET/Socket|NET/Plugin" nccl_2node.log | head -5 || true
#   NET/Socket            -> running over TCP: IB/RoCE not found or excluded (check NCCL_IB_HCA,
#                            rdma-core/libibverbs in the container, NCCL_IB_DISABLE not set)
grep -E "GDRDMA|GPU Direct RDMA" nccl_2node.log | head -5 || true
#   no GDRDMA on the NET lines -> GPUDirect RDMA off: traffic bounces through host memory
grep -E "Using network|NCCL_IB_HCA|mlx5_[0-9]+" nccl_2node.log | sort -u | head -20 || true
#   count the HCAs in use: 4 of 8 rails used looks exactly like "half the bandwidth"

echo "== 4. per-node checks (run on each host)"
cat <<'EOF'
  nvidia-smi topo -m                 # each GPU should have a NIC at PIX/PXB, not SYS
  ibstat | grep -E "CA '|State|Rate" # every port Active at the expected rate (e.g. 400 for NDR);
                                     # one port at 200 or Down caps the whole ring
  lsmod | grep -E "nvidia_peermem|nv_peer_mem"   # needed for GPUDirect RDMA (or DMA-BUF support)
  lspci -vvv | grep -i "ACSCtl"      # ACS enabled on PCIe switches forces P2P/GDR via the root complex
  ib_write_bw -d mlx5_0 --use_cuda=0 <peer>      # perftest per NIC, GPU memory, to isolate the fabric
EOF

echo "== 5. settings to try, one at a time, re-running step 2 after each"
cat <<'EOF'
  -x NCCL_IB_HCA=mlx5_0,mlx5_1,...,mlx5_7   # list all compute HCAs explicitly; exclude storage NICs
  -x NCCL_SOCKET_IFNAME=<mgmt-iface>        # bootstrap/OOB interface only; does not carry the data
  -x NCCL_IB_GID_INDEX=3                    # RoCE v2 fabrics: pick the RoCEv2 GID; also check PFC/ECN
  -x NCCL_NET_GDR_LEVEL=PHB                 # only if NCCL is too conservative about GDR on your topology
EOF
# Leave NCCL_ALGO / NCCL_PROTO / NCCL_P2P_DISABLE unset in production. They are debugging knobs,
# and forcing them usually hides the real problem.
echo "done; compare step-2 busbw at 1-8 GB messages against step 1 and the NIC line rate"
