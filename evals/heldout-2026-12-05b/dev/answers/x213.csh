#!/bin/tcsh -f
# nccl_busbw_check.csh: measure inter-node all-reduce bus bandwidth between two
# 8xH100 nodes with nccl-tests and collect what NCCL picked for transport.
# Plain NCCL/fabric work: no framework settings involved.
#
# usage:  ./nccl_busbw_check.csh node01 node02
# needs:  CUDA, NCCL, an MPI (Open MPI here), nccl-tests built with MPI=1

if ( $#argv != 2 ) then
    echo "usage: $0 <host1> <host2>"
    exit 1
endif
set H1 = $1
set H2 = $2

# --- build nccl-tests once ---------------------------------------------------
if ( ! -x ./nccl-tests/build/all_reduce_perf ) then
    git clone https://github.com/NVIDIA/nccl-tests.git
    cd nccl-tests
    make MPI=1 MPI_HOME=$MPI_HOME CUDA_HOME=$CUDA_HOME NCCL_HOME=$NCCL_HOME -j
    cd ..
endif

# --- what NCCL should use ----------------------------------------------------
setenv NCCL_DEBUG INFO
setenv NCCL_DEBUG_SUBSYS INIT,NET,GRAPH
# the InfiniBand/RoCE HCAs that face the compute fabric (check `ibv_devices`);
# leave unset first and only pin if NCCL picks the wrong ones
# setenv NCCL_IB_HCA mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
# bootstrap/out-of-band interface only; does not carry the data
setenv NCCL_SOCKET_IFNAME eth0
# do NOT set NCCL_IB_DISABLE=1 or NCCL_NET=Socket while measuring

# --- 1) single node baseline (NVLink/NVSwitch only) -------------------------
echo "== intra-node baseline on $H1"
mpirun -np 8 -H ${H1}:8 \
    -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS -x NCCL_SOCKET_IFNAME \
    ./nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 |& tee allreduce_1node.log

# --- 2) two nodes, 16 ranks, one GPU per rank --------------------------------
echo "== inter-node all-reduce $H1 + $H2"
mpirun -np 16 -N 8 -H ${H1}:8,${H2}:8 \
    -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS -x NCCL_SOCKET_IFNAME \
    ./nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 |& tee allreduce_2node.log

# --- 3) what to read ------------------------------------------------------
echo "== transport (want NET/IB ... and GDRDMA, not NET/Socket):"
grep -E "NET/(IB|Socket)|GDRDMA|Using network" allreduce_2node.log | sort -u | head -20

echo "== busbw at the largest sizes (out-of-place column):"
grep -E "^ +[0-9]+" allreduce_2node.log | tail -4

# How to judge it:
#  * compare the large-message busbw with what the NICs can carry
#    (NICs per node x line rate); busbw already normalises for rank count,
#    so it is the number to hold against the hardware, not algbw
#  * NET/Socket in the log            -> IB not used: check NCCL_IB_HCA, rdma-core, ib
#                                       devices visible in the container
#  * NET/IB but no GDRDMA             -> GPUDirect RDMA off: load nvidia-peermem,
#                                       check ACS/IOMMU on the PCIe switches
#  * only some HCAs listed            -> rails missing; check `ibstat` link state and
#                                       rate on every port, and the NIC<->GPU pairing
#                                       in `nvidia-smi topo -m`
#  * half the expected busbw with all 8 HCAs up -> a port trained at half rate,
#                                       or traffic crossing the CPU socket (PIX vs SYS
#                                       in `nvidia-smi topo -m`)
