#!/usr/bin/env bash
# GROMACS's usual preparation of a solvated protein: minimise (CPU), NVT, NPT, then 10 ps of NPT production
# (md.mdp); the last three on one GPU where `halomd devices` lists one, else on the CPU.
# Usage: bash examples/peptide/run.sh [HALOMD_BINARY [OUTDIR]]   (defaults: build/release/halomd, a temp folder)
# DOMAINS=N (TRANSPORT=nvshmem by default): the NVT, NPT and production stages on N GPU domains, one MPI rank
# each (mpirun -n N ... --backend cuda --transport T; ranks sharing one GPU need the MPS daemon running).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../build/release/halomd}
out=${2:-$(mktemp -d)}
threads=$(nproc)
"$bin" run -c "$here/conf.gro" -p "$here/topol.top" -f "$here/em.mdp" -o "$out/em" --threads "$threads"
backend=(--threads "$threads")
launcher=()
if "$bin" devices 2> /dev/null | grep -q "^GPU"; then
  backend=(--backend cuda)
  if [ -n "${DOMAINS:-}" ]; then
    launcher=(mpirun --oversubscribe --allow-run-as-root --bind-to none -n "$DOMAINS")
    backend=(--backend cuda --transport "${TRANSPORT:-nvshmem}")
  fi
fi
"${launcher[@]}" "$bin" run -c "$out/em/confout.gro" -p "$here/topol.top" -f "$here/nvt.mdp" -o "$out/nvt" "${backend[@]}"
"${launcher[@]}" "$bin" run -c "$out/nvt/confout.gro" -p "$here/topol.top" -f "$here/npt.mdp" -o "$out/npt" "${backend[@]}"
"${launcher[@]}" "$bin" run -c "$out/npt/confout.gro" -p "$here/topol.top" -f "$here/md.mdp" -o "$out/md" "${backend[@]}"
echo "examples/peptide: results in $out/em, $out/nvt, $out/npt, $out/md (energy.csv, confout.gro, run.json)"
