#!/usr/bin/env bash
# One call on the GPU machine: the nvshmem and nvshmem_put halo transports' self-test
# (`halomd devices --check-halo`, src/comm/gpu/gpu_halo_check.cpp) with 2 and 4 ranks on the one GPU under
# MPS, on grids of one and two pulses per dimension, a timing of 200 rounds, and the timeout test (rank 1
# stalls: the others must stop within the timeout with a message naming the pulse and rank 1).
# Logs: $OUT/summary.txt and $OUT/logs.tar.gz (one log per run; $OUT takes few files). Used as: device run `bash bench/device_halo_nvshmem.sh`; HALOMD_BIN=path uses a halomd
# built elsewhere (for sm_90, same CUDA and NVSHMEM) when it loads, else the script builds one.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/halomd_device}
LOGS=/tmp/halo_nvshmem_logs
mkdir -p "$OUT" "$LOGS"
NV=${NVSHMEM_HOME:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
export LD_LIBRARY_PATH="$NV/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY

BIN=${HALOMD_BIN:-}
if [[ -n "$BIN" && -x "$BIN" ]] && ! ldd "$BIN" | grep -q "not found" && "$BIN" --version > /dev/null 2>&1; then
  echo "using $BIN"
else
  echo "building halomd (build-dev-nvhalo)"
  cmake -S . -B build-dev-nvhalo -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALOMD_ENABLE_CUDA=ON \
    -DHALOMD_ENABLE_MPI=ON -DHALOMD_ENABLE_NVSHMEM=ON -DHALOMD_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    > "$LOGS/cmake.txt" 2>&1 || { tail -30 "$LOGS/cmake.txt"; exit 1; }
  ninja -C build-dev-nvhalo -j16 halomd > "$LOGS/build.txt" 2>&1 || {
    grep -E "error|FAILED" "$LOGS/build.txt" | head -30
    exit 1
  }
  BIN=build-dev-nvhalo/halomd
fi

nvidia-cuda-mps-control -d
trap 'echo quit | nvidia-cuda-mps-control; tar czf "$OUT/logs.tar.gz" -C "$LOGS" .' EXIT
MPIRUN="mpirun --oversubscribe --allow-run-as-root --bind-to none"
fails=0
check() {  # check LOGNAME NRANKS ARGS...
  local log=$1 n=$2
  shift 2
  local t0=$EPOCHREALTIME
  timeout 45 $MPIRUN -n "$n" "$BIN" devices "$@" > "$LOGS/$log.txt" 2>&1
  local rc=$? t1=$EPOCHREALTIME
  printf '%-24s rc=%d %6.2f s  %s\n' "$log" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" "$*" | tee -a "$OUT/summary.txt"
  grep -vE "^\s*$" "$LOGS/$log.txt" | grep -vE "^(WARN|\[)" | head -6
  [[ $rc -eq 0 ]] || fails=$((fails + 1))
}
for t in nvshmem nvshmem_put; do
  check "${t}_n2" 2 --check-halo $t
  check "${t}_n4_221" 4 --check-halo $t --dd 2 2 1
  check "${t}_n4_411" 4 --check-halo $t --dd 4 1 1
done
# Timing (the check's host work per round included: uploads, copies back, comparisons).
for t in nvshmem nvshmem_put; do
  check "${t}_n4_411_r2" 4 --check-halo $t --dd 4 1 1 --rounds 2
  check "${t}_n4_411_r200" 4 --check-halo $t --dd 4 1 1 --rounds 200
done
# The timeout test: must fail (non-zero), naming pulse 0 and rank 1, long before the stalled rank's 60 s.
for t in nvshmem nvshmem_put; do
  t0=$EPOCHREALTIME
  HALOMD_HALO_TIMEOUT_MS=2000 HALOMD_HALO_CHECK_STALL_RANK=1 timeout 75 $MPIRUN -n 2 \
    -x HALOMD_HALO_TIMEOUT_MS -x HALOMD_HALO_CHECK_STALL_RANK "$BIN" devices --check-halo $t \
    > "$LOGS/${t}_timeout.txt" 2>&1
  rc=$?
  t1=$EPOCHREALTIME
  printf '%-24s rc=%d %6.2f s (must be non-zero, well under 60 s)\n' "${t}_timeout" "$rc" \
    "$(awk "BEGIN{print $t1 - $t0}")" | tee -a "$OUT/summary.txt"
  grep -vE "^\s*$" "$LOGS/${t}_timeout.txt" | head -8
  [[ $rc -ne 0 ]] || fails=$((fails + 1))
done
echo "failures: $fails"
