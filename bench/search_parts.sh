#!/usr/bin/env bash
# Where a neighbour-search step of GPU domains spends its host time: runs the ~45k-atom SPC/E box on one
# GPU (1 domain, and 2 and 4 domains with nvshmem and mpi_staged, one rank each under MPS, as
# halo_one_gpu.sh does) and prints from each rank-0 run.json the search's parts (search_parts_us_mean),
# the GPU time of a regular step, the repartitions and the ns/day, for each skin in SKINS (HALOMD_DD_SKIN,
# nm; default "0 0.1 0.2 0.3") and lanes per atom in TPAS (HALOMD_GPU_TPA; default "auto"); TIMINGS "0 1"
# adds runs with HALOMD_GPU_TIMING=1 (regular steps kernel by kernel with CUDA events between their phases,
# printed from gpu_phase_us); STAMPS=1 adds the nvshmem runs' halo timeline (bench/halo_stamps.py).
# PARTS_SYSTEMS (s = 45k, s9 = 9k) and PARTS_CONFIGS (domains:transport:grid) pick the runs. A diagnostic,
# not a benchmark record: the figures go to bench/NOTES.md with the command.
# Usage: bench/search_parts.sh HALOMD_BINARY [STEPS]  (MPS running)
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
bin=$(realpath "${1:?usage: bench/search_parts.sh HALOMD_BINARY [STEPS]}")
steps=${2:-1000}
work=$(mktemp -d)
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
mpirun="mpirun --oversubscribe --allow-run-as-root --bind-to none"
base=bench/systems/spce_5k6
"$bin" genconf -c $base/conf.gro -p $base/topol.top --nbox 2 2 2 -o "$work/s" > /dev/null
bench_mdp "$steps" > "$work/s.mdp"
cp tests/data/spce_9k/conf.gro "$work/s9.gro"
cp tests/data/spce_9k/topol.top "$work/s9.top"
for sys in ${PARTS_SYSTEMS:-s s9}; do
for tpa in ${TPAS:-auto}; do
for skin in ${SKINS:-0 0.1 0.2 0.3}; do
for timing in ${TIMINGS:-0}; do
  for cfg in ${PARTS_CONFIGS:-4:nvshmem:221 4:mpi_staged:221 2:nvshmem:211}; do
    IFS=':' read -r n t g <<< "$cfg"
    dd="${g:0:1} ${g:1:1} ${g:2:1}"
    tag="${sys}_d${n}_${t:-none}_skin${skin}_tpa${tpa}_t$timing"
    if [ "$n" = 1 ]; then
      launch=""
      extra=""
    else
      launch="$mpirun -n $n -x HALOMD_DD_SKIN -x HALOMD_GPU_TPA -x HALOMD_GPU_TIMING -x HALOMD_DD_OVERLAP -x HALOMD_HALO_STAMPS -x HALOMD_HALO_BLOCKS -x HALOMD_DD_PRIORITY"
      extra="--transport $t --dd $dd"
    fi
    stamps=""
    [ "${STAMPS:-0}" = 1 ] && [ "$n" != 1 ] && stamps="$work/${tag}_st"
    (cd "$work" && HALOMD_HALO_STAMPS=$stamps HALOMD_GPU_TIMING=$timing HALOMD_GPU_TPA=${tpa/auto/0} HALOMD_DD_SKIN=$skin timeout 120 $launch "$bin" run -c $sys.gro -p $sys.top -f s.mdp -o "$tag" \
      --backend cuda $extra > "$tag.log" 2>&1) || { echo "$tag failed"; grep -E "run stopped|error" "$work/$tag.log" | sort | uniq -c | head -5; continue; }
    python3 - "$work/$tag/run.json" "$tag" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ns = r.get("ns_per_day", 0)
print(f"{sys.argv[2]:32s} {ns:8.1f} ns/day  regular {r.get('regular_step_us', 0):7.1f} us  gpu step "
      f"{r.get('regular_step_gpu_us', 0)} us (mid-window {r.get('regular_step_gpu_mid_window_us')} us)  ns_step {r.get('ns_step_us', 0):8.1f} us  search {r.get('search_wall_us_mean')}"
      f"  repart {r.get('repartitions')} gpu-only {r.get('gpu_only_searches')} check {r.get('skin_check_us_mean')} us"
      f" drift {r.get('max_drift_kept_nm')} halo {r.get('halo_atoms_rank0_mean')} tpa {r.get('gpu_lanes_per_atom')}")
if "search_parts_us_mean" in r:
    print("    " + "  ".join(f"{k} {v:.0f}" for k, v in r["search_parts_us_mean"].items()))
if r.get("gpu_phase_us"):
    print("    gpu phases us: " + "  ".join(f"{k} {v:.1f}" for k, v in r["gpu_phase_us"].items()))
if "search_parts_us_mean_max_over_ranks" in r:
    print("    max over ranks: " + "  ".join(f"{k} {v:.0f}" for k, v in r["search_parts_us_mean_max_over_ranks"].items()))
PY
    if [ -n "$stamps" ] && ls "${stamps}"_pe*.txt > /dev/null 2>&1; then
      python3 bench/halo_stamps.py "$stamps" "$(python3 -c "import json; print(json.load(open('$work/$tag/run.json'))['halo_pulses'])")"
    fi
  done
done
done
done
done
