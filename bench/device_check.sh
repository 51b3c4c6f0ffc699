#!/usr/bin/env bash
# One call on the GPU machine (the device tool): build the CUDA targets, run the GPU tests, a memcheck run,
# the benchmark against OpenMM, short tuning sweeps and an ncu look at the kernels. Logs and results go
# under $OUT (logs packed into logs.tgz). Expects the OpenMM wheels in .whl/ (bench/NOTES.md says how they
# are fetched). Used as: device run `COMMIT=<sha> bash bench/device_check.sh` with carry [".whl"].
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
OUT=${OUT:-/tmp/halomd_device}
L=$OUT/logs
mkdir -p "$L"
t0=$(date +%s)
budget=${BUDGET:-330}  # seconds; stages that would not fit are skipped, so logs always come back
stage() { echo "== $1 ($(($(date +%s) - t0)) s)"; }
left() { echo $((budget - ($(date +%s) - t0))); }
fits() { [ "$(left)" -gt "$1" ] || { echo "-- skipped: $(left) s left"; return 1; }; }
finish() {
  tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
  stage done
}
trap finish EXIT

stage environment
{ nvidia-smi; nvcc --version; cmake --version; nproc; } > "$L/environment.txt" 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile .whl/*.whl > "$L/pip.txt" 2>&1 &
pip_pid=$!

stage build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALOMD_ENABLE_CUDA=ON -DHALOMD_ENABLE_MPI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 > "$L/cmake.txt" 2>&1 || { tail -30 "$L/cmake.txt"; exit 1; }
ninja -C build-gpu -j16 halomd test_cuda_executor test_cuda_run > "$L/build.txt" 2>&1 || {
  grep -E "error|FAILED" "$L/build.txt" | head -30
  exit 1
}
grep -iE "warning" "$L/build.txt" | head -5
bin=$PWD/build-gpu/halomd
"$bin" devices

stage gpu-tests
(cd build-gpu && timeout $(($(left) - 60)) ctest -L gpu --output-on-failure) > "$L/ctest_gpu.txt" 2>&1
grep -E "tests passed|Passed|Failed|Skipped|drift|\*\*\*" "$L/ctest_gpu.txt" | head -30
grep -B2 -A12 "Failure" "$L/ctest_gpu.txt" | head -60

w=$(mktemp -d)
stage benchmark
wait $pip_pid
python3 -c "import openmm; print('openmm', openmm.__version__)" 2>&1 | tail -1
fits 90 && BENCH_LOGS=$L/bench COMMIT=${COMMIT:-unknown} timeout $(($(left) - 20)) bench/gpu_single.sh "$bin" > "$L/bench.txt" 2>&1
tail -12 "$L/bench.txt"

stage memcheck
fits 40 || exit 0
sed -e 's/^nsteps .*/nsteps = 25/' -e 's/^nstenergy .*/nstenergy = 5/' -e 's/^nstcalcenergy .*/nstcalcenergy = 5/' \
  tests/data/spce_1k5/nve.mdp > "$w/mc.mdp"
timeout $(($(left) - 10)) compute-sanitizer --tool memcheck --error-exitcode 9 "$bin" run -c tests/data/spce_1k5/conf.gro \
  -p tests/data/spce_1k5/topol.top -f "$w/mc.mdp" -o "$w/mc" --backend cuda > "$L/memcheck.txt" 2>&1
echo "memcheck exit $?"
grep -E "ERROR SUMMARY|Invalid|out of bounds" "$L/memcheck.txt" | head -10

stage sweeps
fits 40 || exit 0
"$bin" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 -o "$w/s45" > /dev/null
for tpa in 4; do
  bench_mdp 6000 10 > "$w/sw.mdp"
  HALOMD_GPU_TPA=$tpa "$bin" run -c "$w/s45.gro" -p "$w/s45.top" -f "$w/sw.mdp" -o "$w/tpa$tpa" --backend cuda > /dev/null 2>&1
  echo "45k tpa $tpa: $(grep -oE '"(ns_per_day)": [0-9.]+|"gpu_phase_us": \{[^}]*\}' "$w/tpa$tpa/run.json" | tr '\n' ' ')"
done | tee "$L/sweep_tpa.txt"
for nl in 15; do
  bench_mdp 6000 $nl > "$w/sw.mdp"
  "$bin" run -c "$w/s45.gro" -p "$w/s45.top" -f "$w/sw.mdp" -o "$w/nl$nl" --backend cuda > /dev/null 2>&1
  echo "45k nstlist $nl: $(grep -oE '"(ns_per_day|rlist_nm)": [0-9.]+|"gpu_phase_us": \{[^}]*\}' "$w/nl$nl/run.json" | tr '\n' ' ')"
done | tee "$L/sweep_nstlist.txt"

stage ncu
fits 30 || exit 0
bench_mdp 40 10 > "$w/ncu.mdp"
for k in 'ns_search:1' 'nonbonded:6' 'update_kernel:6'; do
  fits 15 || break
  timeout $(($(left) - 5)) ncu --clock-control none -k "regex:${k%%:*}" -s "${k##*:}" -c 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis "$bin" run -c "$w/s45.gro" -p "$w/s45.top" -f "$w/ncu.mdp" \
    -o "$w/ncu_${k%%:*}" --backend cuda >> "$L/ncu.txt" 2>&1
done
grep -E "^  [a-z_ ]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|L1/TEX Hit|Warp Cycles Per Issued|Avg. Active Threads" \
  "$L/ncu.txt" | head -40
