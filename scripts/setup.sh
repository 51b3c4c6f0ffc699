#!/usr/bin/env bash
# The setup command (README): installs what halomd needs on a fresh Debian/Ubuntu machine, builds it, and
# runs the bundled water example (examples/water), printing its energies and ns/day.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${HALOMD_SKIP_INSTALL:-0}" != 1 ] && command -v apt-get >/dev/null; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq cmake g++ make libcli11-dev libfmt-dev \
    libgtest-dev openmpi-bin libopenmpi-dev libfftw3-dev clang-format python3-pip >/dev/null
fi

args=(-DCMAKE_BUILD_TYPE=Release -DHALOMD_BUILD_TESTS=OFF)
nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
[ -n "$nvcc_path" ] && args+=(-DHALOMD_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc_path" -DCMAKE_CUDA_ARCHITECTURES=90)
cmake -S . -B build/release "${args[@]}"
cmake --build build/release -j "$(nproc)"

out=$(mktemp -d)/water
# The example runs on the GPU when this build has the CUDA backend and sees a device, else on the CPU.
backend=(--backend cpu --threads "$(nproc)")
if ./build/release/halomd devices | tee /dev/stderr | grep -q "^GPU"; then backend=(--backend cuda); fi
./build/release/halomd run -c examples/water/conf.gro -p examples/water/topol.top -f examples/water/run.mdp \
  -o "$out" "${backend[@]}"
echo "setup.sh: results in $out (energy.csv, traj.xtc, confout.gro, state.cpt, run.json)"
