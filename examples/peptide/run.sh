#!/usr/bin/env bash
# GROMACS's usual preparation of a solvated protein: minimise (CPU), NVT, NPT, then 10 ps of NPT production
# (md.mdp); the last three on one GPU where `halomd devices` lists one, else on the CPU.
# Usage: bash examples/peptide/run.sh [HALOMD_BINARY [OUTDIR]]   (defaults: build/release/halomd, a temp folder)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../build/release/halomd}
out=${2:-$(mktemp -d)}
threads=$(nproc)
"$bin" run -c "$here/conf.gro" -p "$here/topol.top" -f "$here/em.mdp" -o "$out/em" --threads "$threads"
backend=(--threads "$threads")
if "$bin" devices 2> /dev/null | grep -q "^GPU"; then backend=(--backend cuda); fi
"$bin" run -c "$out/em/confout.gro" -p "$here/topol.top" -f "$here/nvt.mdp" -o "$out/nvt" "${backend[@]}"
"$bin" run -c "$out/nvt/confout.gro" -p "$here/topol.top" -f "$here/npt.mdp" -o "$out/npt" "${backend[@]}"
"$bin" run -c "$out/npt/confout.gro" -p "$here/topol.top" -f "$here/md.mdp" -o "$out/md" "${backend[@]}"
echo "examples/peptide: results in $out/em, $out/nvt, $out/npt, $out/md (energy.csv, confout.gro, run.json)"
