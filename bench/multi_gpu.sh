#!/usr/bin/env bash
# Issue 7's run, for a machine with several GPUs (nvidia-h200-x2/-x4/-x8, one rank per GPU): SPC/E water of
# 45k atoms (7.66 nm) and ~203k atoms on 1, 2, 4 (and 8) GPUs with mpi_staged, nvshmem and nvshmem_put, the
# benchmark settings of ../shared/BENCH.md; a correctness check in the same call (step-0 potential of every
# decomposed run against the 1-GPU run, relative difference printed and recorded). Writes
# bench/results/multi_gpu.json and .png (bench/halo_one_gpu_report.py with REPORT_NAME=multi_gpu).
# Usage: bench/multi_gpu.sh HALOMD_BINARY  (built with CUDA, MPI and NVSHMEM). Not yet run: those machine kinds
# have not been lent. MULTI_GPU_DRY_RUN=N runs the script's whole path as if there were N GPUs, the ranks
# sharing the GPUs there are under MPS, into bench/results/multi_gpu_dry_run.json/.png (a check of this
# script on a one-GPU machine, not a result of issue 7). MULTI_GPU_ENV: settings for every run (e.g.
# "HALOMD_DD_DIRECT=1", direct halo pulses, which should pay most across GPUs; written into each command).
# COULOMB=PME: coulombtype = PME (GROMACS's defaults) instead of reaction field, into multi_gpu_pme.json.
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
bin=$(realpath "${1:?usage: bench/multi_gpu.sh HALOMD_BINARY}")
work=$(mktemp -d)
logs=${BENCH_LOGS:-${OUT:-$work}/multi_logs}
mkdir -p "$logs" bench/results
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
gpus=$(nvidia-smi -L | wc -l)
report=multi_gpu
[ "${COULOMB:-}" = PME ] && report=multi_gpu_pme
if [ -n "${MULTI_GPU_DRY_RUN:-}" ]; then
  gpus=$MULTI_GPU_DRY_RUN
  report=${report}_dry_run
  export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog
  nvidia-cuda-mps-control -d
  trap 'echo quit | nvidia-cuda-mps-control' EXIT
fi
mpirun="mpirun --oversubscribe --allow-run-as-root --bind-to none"
base=bench/systems/spce_5k6
"$bin" genconf -c $base/conf.gro -p $base/topol.top --nbox 2 2 2 -o "$work/spce_45k" > /dev/null
"$bin" genconf -c $base/conf.gro -p $base/topol.top --nbox 4 3 3 -o "$work/spce_203k" > /dev/null
records=()
for item in spce_45k:5000 spce_203k:2000; do
  name=${item%%:*}
  steps=${item##*:}
  bench_mdp "$steps" | sed "s/^coulombtype = .*/coulombtype = ${COULOMB:-Reaction-Field}/" > "$work/$name.mdp"
  for n in 1 2 4 8; do
    [ "$n" -le "$gpus" ] || continue
    for t in mpi_staged nvshmem nvshmem_put; do
      [ "$n" -eq 1 ] && [ "$t" != mpi_staged ] && continue
      tag=${name}_g${n}_$t
      if [ "$n" -eq 1 ]; then tag=${name}_g1_none; fi
      launcher=""
      args=""
      [ "$n" -gt 1 ] && launcher="$mpirun -n $n" && args="--transport $t"
      cmd="halomd run -c $name.gro -p $name.top -f $name.mdp -o $tag --backend cuda $args"
      settings=${MULTI_GPU_ENV:+env $MULTI_GPU_ENV }
      # shellcheck disable=SC2086
      (cd "$work" && timeout 300 $launcher $settings "$bin" ${cmd#halomd } > "$logs/$tag.log" 2>&1) ||
        echo "failed: $tag"
      records+=("$tag|$name|$steps|${launcher:+$launcher }$settings$cmd")
      [ -f "$work/$tag/energy.csv" ] && [ -f "$work/${name}_g1_none/energy.csv" ] && python3 - "$work/$tag/energy.csv" \
        "$work/${name}_g1_none/energy.csv" << 'PY' | tee -a "$logs/correctness.txt"
import sys
def pot(p):
    rows = [l.split(",") for l in open(p).read().split("\n") if l]
    return float(rows[1][rows[0].index("potential")])
a, b = pot(sys.argv[1]), pot(sys.argv[2])
print(f"{sys.argv[1].split('/')[-2]}: step-0 potential {a:.6f} vs 1 GPU {b:.6f}, rel {abs(a - b) / abs(b):.2e}")
PY
    done
  done
done
REPORT_NAME=$report GPUS_VISIBLE=$gpus python3 bench/halo_one_gpu_report.py "$work" "${COMMIT:-unknown}" "${records[@]}"
