#!/usr/bin/env bash
# One call on the GPU machine: the CPU-orchestrated GPU halo transports (mpi_staged, cuda_ipc) checked by
# `halomd devices --check-halo` (src/comm/gpu/gpu_halo_check.cpp) with 2 and 4 ranks on the one GPU under
# MPS, on the grids 2x1x1, 2x2x1 and 4x1x1 (two pulses), and the timeout test (rank 1 stalls: rank 0 must
# stop within the timeout naming the pulse and rank 1); then tests/test_cuda_halo_mpi (the same through
# gtest). Logs: $OUT/summary.txt, $OUT/logs.tar.gz. Used as: device run `bash bench/device_halo_staged.sh`.
# HALOMD_BIN=path (and HALOMD_TEST_BIN=path) use binaries built elsewhere (sm_90, same CUDA) when they load;
# otherwise the script builds both (NVSHMEM off: these transports do not need it).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/halomd_device}
LOGS=/tmp/halo_staged_logs
mkdir -p "$OUT" "$LOGS"
exec > >(tee "$OUT/summary.txt") 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
t0=$(date +%s%N)
since() { echo "$((($(date +%s%N) - $1) / 1000000)) ms"; }  # since a `date +%s%N`

loads() { [[ -n "$1" && -x "$1" ]] && ! ldd "$1" | grep -q "not found"; }
BIN=${HALOMD_BIN:-}
TEST_BIN=${HALOMD_TEST_BIN:-}
if loads "$BIN"; then
  echo "using $BIN"
else
  echo "building halomd and test_cuda_halo_mpi (build-dev-staged)"
  cmake -S . -B build-dev-staged -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALOMD_ENABLE_CUDA=ON \
    -DHALOMD_ENABLE_MPI=ON -DHALOMD_ENABLE_NVSHMEM=OFF -DHALOMD_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    > "$LOGS/cmake.txt" 2>&1 || { tail -30 "$LOGS/cmake.txt"; exit 1; }
  ninja -C build-dev-staged -j16 halomd test_cuda_halo_mpi > "$LOGS/build.txt" 2>&1 || {
    grep -E "error|FAILED" "$LOGS/build.txt" | head -30
    exit 1
  }
  BIN=$PWD/build-dev-staged/halomd
  TEST_BIN=$PWD/build-dev-staged/tests/test_cuda_halo_mpi
  echo "built in $(since "$t0")"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvidia-cuda-mps-control -d && echo "MPS started"
finish() {
  echo quit | nvidia-cuda-mps-control
  tar czf "$OUT/logs.tar.gz" -C "$LOGS" .
}
trap finish EXIT

mpirun="mpirun --oversubscribe --allow-run-as-root --bind-to none"
for t in mpi_staged cuda_ipc; do
  for spec in "2:" "4:--dd 2 2 1" "4:--dd 4 1 1"; do
    n=${spec%%:*} dd=${spec#*:}
    log=$LOGS/${t}_n${n}_${dd// /}.txt
    s=$(date +%s%N)
    timeout 60 $mpirun -n "$n" "$BIN" devices --check-halo "$t" $dd > "$log" 2>&1
    rc=$?
    echo "== $t -n $n ${dd:-(2x1x1)}: rc $rc, $(since "$s")"
    grep -E "^rank [0-9]+:|run stopped|error|Read -1" "$log" | sort | head -8
  done
  log=$LOGS/${t}_stall.txt
  s=$(date +%s%N)
  HALOMD_HALO_TIMEOUT_MS=2000 HALOMD_HALO_CHECK_STALL_RANK=1 timeout 90 $mpirun -n 2 "$BIN" devices \
    --check-halo "$t" > "$log" 2>&1
  rc=$?
  echo "== $t stall test (rank 1 stalls, timeout 2000 ms): rc $rc, $(since "$s")"
  grep -E "run stopped|did not" "$log" | head -4
done

if loads "$TEST_BIN"; then
  s=$(date +%s%N)
  timeout 150 "$TEST_BIN" --gtest_filter="${GTEST_FILTER:-*mpi_staged*:*cuda_ipc*}" > "$LOGS/gtest.txt" 2>&1
  echo "== test_cuda_halo_mpi: rc $?, $(since "$s")"
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\] .*\([0-9]+ ms\)$|^\[  PASSED" "$LOGS/gtest.txt" | head -20
fi
echo "total $(since "$t0")"
