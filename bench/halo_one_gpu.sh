#!/usr/bin/env bash
# The GPU halo transports on one GPU: SPC/E water of ~9k and ~45k atoms on 1 domain (the single-GPU
# executor, no MPI) and on 2 and 4 domains (one MPI rank per domain, all on the one GPU under MPS) with each
# transport: mpi_staged, cuda_ipc, nvshmem (direct stores), nvshmem_put (put-with-signal). The benchmark
# settings of ../shared/BENCH.md. Writes bench/results/halo_one_gpu.json (BENCH.md format) and
# halo_one_gpu.png (bar plot), and copies both to $OUT when it is set.
#   spce_9k   tests/data/spce_9k: 8,916 atoms, 4.5 nm box
#   spce_45k  bench/systems/spce_5k6 x 2x2x2 (halomd genconf): 45,120 atoms, 7.66 nm box
#   tip4p_44k  tests/data/vsite/tip4p x 2x2x3 (halomd genconf): TIP4P (oplsaa.ff, a virtual site per water),
#              43,632 atoms, 6 x 6 x 9 nm box (GMXLIB must hold GROMACS's force fields)
#   peptide_7k  examples/peptide (amber99sb-ildn, TIP3P): 7,359 atoms, 4.2 nm box, hydrogen bonds
#               constrained (LINCS); with COULOMB=PME, as a protein is run (HALO_SYSTEMS="peptide_7k:4000")
# Usage: bench/halo_one_gpu.sh HALOMD_BINARY   (built with CUDA, MPI and NVSHMEM; the MPS daemon running)
# Grids: 2 domains 2x1x1, 4 domains 2x2x1 (HALO_GRID4 overrides, e.g. "4 1 1"). HALO_ENV_<transport>:
# settings for that transport's runs, e.g. HALO_ENV_nvshmem="HALOMD_DD_DIRECT=1" (written into the command).
# COULOMB=PME: coulombtype = PME (GROMACS's defaults) instead of reaction field, into halo_one_gpu_pme.json.
# PCOUPL=1: NPT (bench_npt: C-rescale at 1 bar, every 10 steps) into halo_one_gpu_npt.json (_pme_npt).
# REPORT_NAME: another name for the results (e.g. halo_one_gpu_peptide).
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
bin=$(realpath "${1:?usage: bench/halo_one_gpu.sh HALOMD_BINARY}")
work=$(mktemp -d)
logs=${BENCH_LOGS:-${OUT:-$work}/halo_logs}
mkdir -p "$logs" bench/results
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
mpirun="mpirun --oversubscribe --allow-run-as-root --bind-to none"
grid4=${HALO_GRID4:-2 2 1}
transports=${HALO_TRANSPORTS:-mpi_staged cuda_ipc nvshmem nvshmem_put}

base=bench/systems/spce_5k6
"$bin" genconf -c $base/conf.gro -p $base/topol.top --nbox 2 2 2 -o "$work/spce_45k" > /dev/null
if [[ " ${HALO_SYSTEMS:-} " == *" tip4p_44k:"* ]]; then
  "$bin" genconf -c tests/data/vsite/tip4p/conf.gro -p tests/data/vsite/tip4p/topol.top --nbox 2 2 3 \
    -o "$work/tip4p_44k" > /dev/null
fi
cp tests/data/spce_9k/conf.gro "$work/spce_9k.gro"
cp tests/data/spce_9k/topol.top "$work/spce_9k.top"
cp examples/peptide/conf.gro "$work/peptide_7k.gro"
cp examples/peptide/topol.top "$work/peptide_7k.top"

records=()
for item in ${HALO_SYSTEMS:-spce_9k:6000 spce_45k:3000}; do
  name=${item%%:*}
  steps=${item##*:}
  bench_mdp "$steps" | sed "s/^coulombtype = .*/coulombtype = ${COULOMB:-Reaction-Field}/" > "$work/$name.mdp"
  [ "$name" = peptide_7k ] && echo "constraints = h-bonds" >> "$work/$name.mdp"
  [ "${PCOUPL:-0}" = 1 ] && bench_npt >> "$work/$name.mdp"
  run() {  # tag launcher args...
    local tag=$1 launcher=$2
    shift 2
    local cmd="halomd run -c $name.gro -p $name.top -f $name.mdp -o $tag --backend cuda $*"
    (cd "$work" && timeout 300 $launcher "$bin" ${cmd#halomd } > "$logs/$tag.log" 2>&1) || echo "failed: $tag"
    records+=("$tag|$name|$steps|${launcher:+$launcher }$cmd")
  }
  run "${name}_d1_none" ""
  for t in $transports; do
    settings_var=HALO_ENV_$t
    settings=${!settings_var:+ env ${!settings_var}}
    run "${name}_d2_$t" "$mpirun -n 2$settings" --transport "$t" --dd 2 1 1
    run "${name}_d4_$t" "$mpirun -n 4$settings" --transport "$t" --dd $grid4
  done
done
for r in "${records[@]}"; do
  tag=${r%%|*}
  [ -f "$work/$tag/run.json" ] && cp "$work/$tag/run.json" "$logs/run_$tag.json"
done
name=halo_one_gpu
[ "${COULOMB:-}" = PME ] && name=halo_one_gpu_pme
[ "${PCOUPL:-0}" = 1 ] && name=${name}_npt
name=${REPORT_NAME:-$name}
REPORT_NAME=$name python3 bench/halo_one_gpu_report.py "$work" "${COMMIT:-unknown}" "${records[@]}"
[ -n "${OUT:-}" ] && cp bench/results/$name.json bench/results/$name.png "$OUT/" 2> /dev/null || true
