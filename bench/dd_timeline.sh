#!/usr/bin/env bash
# The GPU timeline of 4 domains (2x2x1) sharing one GPU under MPS, from Nsight Systems: one trace per rank
# (kernels inside CUDA graphs traced one by one), then bench/dd_timeline.py's split of regular and search
# steps into wall time, time with any kernel running, and kernel time by name. A diagnostic for
# bench/NOTES.md, run on the GPU machine: bash bench/dd_timeline.sh HALOMD_BINARY
# SYSTEM (spce_45k or spce_9k), STEPS (2000), TRANSPORT (nvshmem).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
bin=$(realpath "${1:?usage: bench/dd_timeline.sh HALOMD_BINARY}")
work=$(mktemp -d)
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
export CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/mps} CUDA_MPS_LOG_DIRECTORY=${CUDA_MPS_LOG_DIRECTORY:-/tmp/mpslog}
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
started=0
if ! echo get_server_list | nvidia-cuda-mps-control > /dev/null 2>&1; then
  nvidia-cuda-mps-control -d && started=1
fi
trap '[ $started = 1 ] && echo quit | nvidia-cuda-mps-control; rm -rf "$work"' EXIT
system=${SYSTEM:-spce_45k}
if [ "$system" = spce_45k ]; then
  "$bin" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 \
    -o "$work/sys" > /dev/null
else
  cp tests/data/spce_9k/conf.gro "$work/sys.gro"
  cp tests/data/spce_9k/topol.top "$work/sys.top"
fi
bench_mdp "${STEPS:-2000}" > "$work/run.mdp"
(cd "$work" && timeout 300 mpirun --oversubscribe --allow-run-as-root --bind-to none -n 4 \
  nsys profile --trace=cuda --cuda-graph-trace=node --export=sqlite -o "rank%q{OMPI_COMM_WORLD_RANK}" \
  "$bin" run -c sys.gro -p sys.top -f run.mdp -o out --backend cuda --transport "${TRANSPORT:-nvshmem}" \
  --dd 2 2 1 > run.log 2>&1) || { tail -20 "$work/run.log"; exit 1; }
python3 -c "import json; r = json.load(open('$work/out/run.json')); print('ns/day under nsys', round(r['ns_per_day']))"
python3 bench/dd_timeline.py "$work"/rank0.sqlite "$work"/rank1.sqlite "$work"/rank2.sqlite "$work"/rank3.sqlite
