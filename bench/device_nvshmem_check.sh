#!/usr/bin/env bash
# One call on the GPU machine: build with MPI and NVSHMEM (the machine's wheel), then run the NVSHMEM check
# (tests/test_cuda_nvshmem_mpi.cpp: 2 ranks on the one GPU under MPS, put-with-signal and direct stores).
# Logs under $OUT. Used as: device run `bash bench/device_nvshmem_check.sh`.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/halomd_device}
mkdir -p "$OUT"
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
cmake -S . -B build-nv -G Ninja -DCMAKE_BUILD_TYPE=Release -DHALOMD_ENABLE_CUDA=ON -DHALOMD_ENABLE_MPI=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/cmake.txt" 2>&1 || { tail -30 "$OUT/cmake.txt"; exit 1; }
grep -E "HALOMD_ENABLE_NVSHMEM|NVSHMEM_HOME" build-nv/CMakeCache.txt
ninja -C build-nv -j16 halomd test_cuda_nvshmem_mpi > "$OUT/build.txt" 2>&1 || {
  grep -E "error|FAILED" "$OUT/build.txt" | head -30
  exit 1
}
nvidia-cuda-mps-control -d
trap 'echo quit | nvidia-cuda-mps-control' EXIT
(cd build-nv && timeout 200 ctest -R nvshmem --output-on-failure) > "$OUT/ctest.txt" 2>&1
tail -25 "$OUT/ctest.txt"
timeout 60 mpirun --oversubscribe --allow-run-as-root --bind-to none -n 4 build-nv/halomd devices --check-nvshmem 2>&1 | tail -12
