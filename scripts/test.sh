#!/usr/bin/env bash
# The test command (README; .ci/run calls exactly this): builds every backend this machine can build,
# checks the formatting, and runs the whole CTest suite.
set -euo pipefail
cd "$(dirname "$0")/.."

args=(-DCMAKE_BUILD_TYPE=Release)
nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc_path" ]; then
  args+=(-DHALOMD_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc_path" -DCMAKE_CUDA_ARCHITECTURES=90)
  echo "test.sh: building the CUDA backend with $nvcc_path"
else
  echo "test.sh: no nvcc found: the CUDA backend is not built"
fi

# The mpi transport and its tests (ctest label "mpi") whenever an MPI library is installed; explicit, so that
# a build folder configured before MPI was installed picks it up.
if command -v mpiexec >/dev/null && command -v mpicxx >/dev/null; then
  args+=(-DHALOMD_ENABLE_MPI=ON)
  echo "test.sh: building the mpi transport ($(command -v mpiexec))"
  # Containers often lack the ptrace capability Open MPI's single-copy shared memory needs.
  export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
else
  args+=(-DHALOMD_ENABLE_MPI=OFF)
  echo "test.sh: no MPI found: the mpi transport is not built and its tests skip"
fi

if command -v clang-format >/dev/null; then
  files=$(git ls-files 'src/*.h' 'src/*.cpp' 'src/*.cu' 'tests/*.h' 'tests/*.cpp' 2>/dev/null || true)
  if [ -n "$files" ]; then
    # shellcheck disable=SC2086
    clang-format --dry-run -Werror $files
    echo "test.sh: formatting checked"
  fi
fi

# The NVSHMEM runtime whenever CUDA, MPI and NVSHMEM's headers (the nvidia-nvshmem-cu13 wheel) are all here.
if [ -n "$nvcc_path" ] && command -v mpicxx >/dev/null &&
  python3 -c "import nvidia.nvshmem" 2>/dev/null; then
  args+=(-DHALOMD_ENABLE_NVSHMEM=ON)
  echo "test.sh: building the NVSHMEM runtime"
else
  args+=(-DHALOMD_ENABLE_NVSHMEM=OFF)
  echo "test.sh: no NVSHMEM (pip install nvidia-nvshmem-cu13==3.4.5): the NVSHMEM runtime is not built"
fi

cmake -S . -B build/test "${args[@]}"
cmake --build build/test -j "$(nproc)"
ctest --test-dir build/test --output-on-failure --timeout 1200
