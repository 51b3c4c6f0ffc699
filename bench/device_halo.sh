#!/usr/bin/env bash
# One call on the GPU machine (the device tool) for the GPU halo transports: build with CUDA, MPI and NVSHMEM
# (the machine's NVSHMEM), start MPS, run the GPU tests (single-GPU executor, transports' self-test, domains
# against one GPU, bitwise across transports, counters), then bench/halo_one_gpu.sh; stop MPS. Logs and
# results under $OUT. Used as: device run `COMMIT=<sha> BUDGET=<s> bash bench/device_halo.sh`.
# STAGES (default "tests bench") picks what runs (also "parts": bench/search_parts.sh; "ab": bench/halo_ab.sh
# with devbin/halomd_base, a binary of an earlier commit built here, against the binary under test; "variants":
# bench/halo_variants.sh with the settings in VARIANTS); TESTS the test
# binaries, GTEST_FILTER their filter, TEST_GUARD the seconds kept back for what follows (150).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/halomd_device}
L=$OUT/logs
mkdir -p "$L"
t0=$(date +%s)
budget=${BUDGET:-540}
stage() { echo "== $1 ($(($(date +%s) - t0)) s)"; }
left() { echo $((budget - ($(date +%s) - t0))); }
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
finish() {
  echo quit | nvidia-cuda-mps-control 2> /dev/null
  tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
  stage done
}
trap finish EXIT

stage build
NV=${NVSHMEM_HOME:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
export LD_LIBRARY_PATH="$NV/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
tests="test_cuda_executor test_cuda_run test_cuda_halo_mpi test_cuda_dd_mpi test_cuda_nvshmem_mpi"
if [ -x devbin/halomd ] && ! ldd devbin/halomd | grep -q "not found"; then
  # Binaries built on the development machine (same nvcc, sm_90) carried in devbin/: the tests have their
  # paths compiled in (/work/main/build-nv/...), so the copy is made to look like that tree.
  echo "using carried binaries"
  if [ "$PWD" != /work/main ]; then mkdir -p /work && ln -sfn "$PWD" /work/main; fi
  mkdir -p build-nv/tests && cp devbin/halomd build-nv/ && for t in $tests; do cp devbin/$t build-nv/tests/; done
  bdir=build-nv
else
  cmake -S . -B build-halo -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALOMD_ENABLE_CUDA=ON -DHALOMD_ENABLE_MPI=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 > "$L/cmake.txt" 2>&1 || { tail -30 "$L/cmake.txt"; exit 1; }
  grep -E "^HALOMD_ENABLE_NVSHMEM" build-halo/CMakeCache.txt
  ninja -C build-halo -j16 halomd $tests > "$L/build.txt" 2>&1 || {
    grep -E "error|FAILED" "$L/build.txt" | head -30
    exit 1
  }
  bdir=build-halo
fi
bin=$PWD/$bdir/halomd
nvidia-cuda-mps-control -d && echo "MPS started"

if [[ " ${STAGES:-tests bench} " == *" tests "* ]]; then
  stage tests
  for t in ${TESTS:-$tests}; do
    guard=${TEST_GUARD:-150}
    [ "$(left)" -gt "$guard" ] || { echo "-- $t skipped: $(left) s left"; continue; }
    timeout $(($(left) - guard + 10)) $bdir/tests/$t --gtest_filter="${GTEST_FILTER:-*}" > "$L/$t.txt" 2>&1
    echo "$t: rc $?"
    grep -E "^\[ +(OK|FAILED|SKIPPED) +\]" "$L/$t.txt" | head -20
    grep -B3 -A12 "Failure\|error:" "$L/$t.txt" | head -50
  done
fi
if [[ " ${STAGES:-tests bench} " == *" parts "* ]]; then
  stage parts
  timeout $(($(left) - 15)) bench/search_parts.sh "$bin" ${PARTS_STEPS:-1000} 2>&1 | tee "$L/parts.txt"
fi
if [[ " ${STAGES:-tests bench} " == *" ab "* ]]; then
  stage ab
  if [ -x devbin/halomd_base ]; then
    timeout $(($(left) - 15)) bench/halo_ab.sh devbin/halomd_base "$bin" 2>&1 | tee "$L/ab.txt"
  else
    echo "-- ab skipped: no devbin/halomd_base"
  fi
fi
if [[ " ${STAGES:-tests bench} " == *" variants "* ]]; then
  stage variants
  # VARIANTS: bench/halo_variants.sh's NAME=SETTINGS arguments as one shell-quoted string, e.g.
  # VARIANTS='base= "skin06direct=HALOMD_DD_SKIN=0.6 HALOMD_DD_DIRECT=1"'.
  eval "set -- ${VARIANTS:-base=}"
  timeout $(($(left) - 15)) bench/halo_variants.sh "$bin" "$@" 2>&1 | tee "$L/variants.txt"
fi
if [[ " ${STAGES:-tests bench} " == *" bench "* ]]; then
  stage bench
  BENCH_LOGS=$L/bench COMMIT=${COMMIT:-unknown} timeout $(($(left) - 15)) bench/halo_one_gpu.sh "$bin" > "$L/bench.txt" 2>&1
  tail -30 "$L/bench.txt"
  cp bench/results/halo_one_gpu.json bench/results/halo_one_gpu.png "$OUT/" 2> /dev/null
fi
