#!/usr/bin/env bash
# A lean device call for the pair-search work (bench/NOTES.md, 2026-12-03, "the search as a warp-cooperative
# stream"): the GPU tests, memcheck and racecheck on a short run, the halomd benchmark runs of
# bench/gpu_single.sh without OpenMM (graph run and kernel-by-kernel run at 9k, 45k, 203k atoms) for the
# binary under test and, when given, a baseline binary in the same call, a sweep of the search lanes per
# atom, and ncu kernel times at 45k. Prints one summary line per run; run.json files and logs go to
# $OUT/ns_logs.tgz.
# Usage: BIN=build-gpu/halomd [BASE=path/to/old/halomd] [TESTS=build-gpu/tests] bash bench/ns_check.sh
# (prebuilt binaries, or BUILD=1 to build build-gpu here with Ninja for sm_90).
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
OUT=${OUT:-/tmp/halomd_ns}
L=$OUT/ns_logs
mkdir -p "$L"
t0=$(date +%s)
budget=${BUDGET:-200}
stage() { echo "== $1 ($(($(date +%s) - t0)) s)"; }
left() { echo $((budget - ($(date +%s) - t0))); }
fits() { [ "$(left)" -gt "$1" ] || { echo "-- skipped: $(left) s left"; return 1; }; }
trap 'tar czf "$OUT/ns_logs.tgz" -C "$OUT" ns_logs && rm -rf "$L"; stage done' EXIT
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}

if [ "${BUILD:-0}" = 1 ]; then
  stage build
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALOMD_ENABLE_CUDA=ON -DHALOMD_ENABLE_MPI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90 > "$L/cmake.txt" 2>&1 || { tail -30 "$L/cmake.txt"; exit 1; }
  ninja -C build-gpu halomd test_cuda_executor test_cuda_run > "$L/build.txt" 2>&1 || {
    grep -E "error|FAILED" "$L/build.txt" | head -30
    exit 1
  }
fi
bin=$(realpath "${BIN:-build-gpu/halomd}")
tests=${TESTS:-build-gpu/tests}
"$bin" devices 2>&1 | head -3

stage gpu-tests
# test_cuda_run runs the halomd binary at the path compiled into it (/work/main/build-nv/halomd, the tree it
# was built in): the binary under test is put there when that tree has none.
if [ ! -x build-nv/halomd ]; then
  mkdir -p build-nv && cp "$bin" build-nv/halomd
  [ "$PWD" != /work/main ] && mkdir -p /work && ln -sfn "$PWD" /work/main
fi
for t in test_cuda_executor test_cuda_run; do
  timeout $(($(left) - 100)) "$tests/$t" > "$L/$t.txt" 2>&1
  echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/$t.txt" | tr '\n' ' ')"
  grep -E "drift|Failure|Expected|Which is|vs " "$L/$t.txt" | head -12
done

w=$(mktemp -d)
cp tests/data/spce_9k/conf.gro "$w/spce_9k.gro"
cp tests/data/spce_9k/topol.top "$w/spce_9k.top"
"$bin" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 -o "$w/spce_45k" > /dev/null
"$bin" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 4 3 3 -o "$w/spce_203k" > /dev/null

summary() {  # run.json -> one line
  python3 - "$1" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ph = r.get("gpu_phase_us", {})
keys = ["ns_search", "nonbonded", "nonbonded_energy", "update", "step_regular", "step_ns", "step_regular_graph", "step_ns_graph"]
print(f"ns/day {r['ns_per_day']:.0f} tpa {r.get('gpu_lanes_per_atom')} grid {r.get('gpu_grid')} "
      f"pairs {r['pairs_in_list']} entries/lane max {r.get('gpu_list_entries_per_lane_max')} "
      + " ".join(f"{k} {ph[k]:.1f}" for k in keys if k in ph))
PY
}
# run NAME SYSTEM STEPS BIN [ENV...]: a graph run and a kernel-by-kernel run (steps / 5)
run() {
  local name=$1 sys=$2 steps=$3 b=$4
  shift 4
  bench_mdp "$steps" 10 > "$w/$name.mdp"
  bench_mdp $((steps / 5)) 10 > "$w/${name}_t.mdp"
  env "$@" "$b" run -c "$w/$sys.gro" -p "$w/$sys.top" -f "$w/$name.mdp" -o "$w/$name" --backend cuda > "$L/$name.log" 2>&1 \
    || { echo "$name: FAILED"; tail -3 "$L/$name.log"; return; }
  env "$@" HALOMD_GPU_TIMING=1 "$b" run -c "$w/$sys.gro" -p "$w/$sys.top" -f "$w/${name}_t.mdp" -o "$w/${name}_t" \
    --backend cuda > "$L/${name}_t.log" 2>&1
  cp "$w/$name/run.json" "$L/run_$name.json"
  cp "$w/${name}_t/run.json" "$L/run_${name}_t.json" 2> /dev/null
  echo "$name graph: $(summary "$w/$name/run.json")"
  echo "$name timed: $(summary "$w/${name}_t/run.json")"
}

stage benchmark
for item in ${SYSTEMS-spce_9k:30000 spce_45k:20000 spce_203k:5000}; do  # SYSTEMS="" runs none
  fits 40 || break
  run "new_${item%%:*}" "${item%%:*}" "${item##*:}" "$bin"
  [ -n "${BASE:-}" ] && run "base_${item%%:*}" "${item%%:*}" "${item##*:}" "$(realpath "$BASE")"
done

stage sweep  # SWEEP: comma-separated "SYSTEM [VAR=VALUE ...]" runs of 5,000 steps with those HALOMD_* settings
# (SWEEP="" runs none)
IFS=, read -ra sweep <<< "${SWEEP-spce_45k HALOMD_GPU_REACH_Z=4,spce_45k HALOMD_GPU_TPA=16}"
for v in "${sweep[@]}"; do
  set -- $v
  [ $# -gt 0 ] || continue
  fits 30 || break
  sys=$1
  shift
  tag=$(echo "$*" | sed -e 's/HALOMD_GPU_//g' -e 's/[^A-Za-z0-9]/_/g')
  run "sweep_${sys}_$tag" "$sys" 5000 "$bin" "$@"
done

stage sanitizers
sed -e 's/^nsteps .*/nsteps = 25/' -e 's/^nstenergy .*/nstenergy = 5/' -e 's/^nstcalcenergy .*/nstcalcenergy = 5/' \
  tests/data/spce_1k5/nve.mdp > "$w/mc.mdp"
for tool in ${SANITIZERS:-memcheck racecheck synccheck}; do
  fits 30 || break
  timeout $(($(left) - 20)) compute-sanitizer --tool $tool --error-exitcode 9 "$bin" run -c tests/data/spce_1k5/conf.gro \
    -p tests/data/spce_1k5/topol.top -f "$w/mc.mdp" -o "$w/mc_$tool" --backend cuda > "$L/$tool.txt" 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/$tool.txt" | head -2 | tr '\n' ' ')"
done

stage ncu  # NCU_SYS (spce_45k), NCU_KERNELS (a regex of the timed kernels), NCU_DETAIL (the one profiled)
ncu_sys=${NCU_SYS:-spce_45k}
bench_mdp 40 10 > "$w/ncu.mdp"
fits 25 && timeout $(($(left) - 10)) ncu --clock-control none --print-kernel-base function --metrics gpu__time_duration.sum -k "regex:${NCU_KERNELS:-ns_|nonbonded}" \
  -c 21 "$bin" run -c "$w/$ncu_sys.gro" -p "$w/$ncu_sys.top" -f "$w/ncu.mdp" -o "$w/ncu_t" --backend cuda > "$L/ncu_times.txt" 2>&1
grep -E "\)x\(|gpu__time_duration" "$L/ncu_times.txt" | sed -E 's/^ *([A-Za-z_<>]+).*\)x\(.*/\1/; s/ +/ /g' | paste -d' ' - - | head -21
fits 20 && timeout $(($(left) - 5)) ncu --clock-control none -k "regex:${NCU_DETAIL:-search_kernel}" -c 1 --section SpeedOfLight \
  --section Occupancy --section LaunchStats --section WarpStateStats "$bin" run -c "$w/$ncu_sys.gro" \
  -p "$w/$ncu_sys.top" -f "$w/ncu.mdp" -o "$w/ncu_s" --backend cuda > "$L/ncu_search.txt" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Avg. Active Threads|Theoretical Occ" \
  "$L/ncu_search.txt" | head -12
