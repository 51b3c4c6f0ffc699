#!/usr/bin/env bash
# Makes the base water box of the benchmark systems: bench/systems/spce_5k6, SPC/E in a 3.83 nm cube
# (~5.6k atoms), solvated, minimised and equilibrated 20 ps at 300 K with GROMACS 2022 (gmx, mixed
# precision is enough for a starting structure). The benchmark systems are replicas of it made by
# `halomd genconf` where they run (the GPU machine has no GROMACS):
#   spce_45k: --nbox 2 2 2 of spce_5k6 (7.66 nm cube, the size the issues ask for)
# and tests/data/spce_9k (4.5 nm) for ~9k atoms. Usage: bash bench/make_systems.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HELPER=$ROOT/tests/refdata/refdata.py
OUT=$ROOT/bench/systems/spce_5k6
BOX=3.83
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
nonbonded() {
  cat << 'EOF'
cutoff-scheme            = Verlet
nstlist                  = 10
verlet-buffer-tolerance  = -1
rlist                    = 1.1
coulombtype              = Reaction-Field
epsilon-rf               = 0
rcoulomb                 = 1.0
vdw-modifier             = Potential-shift
rvdw                     = 1.0
DispCorr                 = EnerPres
EOF
}
gmx solvate -cs spc216.gro -box $BOX $BOX $BOX -o packed.gro > solvate.log 2>&1
# solvate leaves the seams of the 1.862 nm spc216 blocks thin (-9% here): insert waters up to spc216's own
# density (216 molecules per 1.86206^3 nm^3), which minimisation and the NVT run then relax.
have=$(($(sed -n 2p packed.gro | tr -d ' ') / 3))
want=$(python3 -c "print(round($BOX ** 3 * 216 / 1.86206 ** 3))")
sed -n 3,5p packed.gro | awk 'BEGIN { print "water"; print 3 } { print } END { print "   0.3   0.3   0.3" }' > one.gro
gmx insert-molecules -f packed.gro -ci one.gro -nmol $((want - have)) -try 200 -scale 0.5 -o solvated.gro \
  > insert.log 2>&1
nmol=$(($(sed -n 2p solvated.gro | tr -d ' ') / 3))
[ "$nmol" -eq "$want" ] || { echo "make_systems.sh: only $nmol of $want waters placed" >&2; exit 1; }
printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/spce.itp"\n\n[ system ]\nSPC/E water\n\n[ molecules ]\nSOL %d\n' \
  "$nmol" > full.top
{ printf 'integrator = steep\nnsteps = 2000\nemtol = 100\nemstep = 0.01\n'; nonbonded; } > em.mdp
gmx grompp -f em.mdp -c solvated.gro -p full.top -pp full_pp.top -o em.tpr > grompp_em.log 2>&1
gmx mdrun -s em.tpr -deffnm em -ntmpi 1 -ntomp 2 > em.log 2>&1
{
  printf 'integrator = md\ndt = 0.002\nnsteps = 10000\ncontinuation = no\ngen-vel = yes\ngen-temp = 300\n'
  printf 'gen-seed = 1729\ntcoupl = V-rescale\ntc-grps = System\ntau-t = 0.1\nref-t = 300\nld-seed = 1729\n'
  printf 'nstcalcenergy = 100\nnstenergy = 1000\nnstxout-compressed = 0\n'
  nonbonded
} > nvt.mdp
gmx grompp -f nvt.mdp -c em.gro -p full.top -o nvt.tpr > grompp_nvt.log 2>&1
gmx mdrun -s nvt.tpr -deffnm nvt -c conf.gro -ntmpi 1 -ntomp 2 > nvt.log 2>&1
python3 "$HELPER" strip-top full_pp.top topol.top \
  --header "SPC/E water (OPLS-AA opls_116, opls_117; spce.itp), self-contained: made by bench/make_systems.sh" \
  --header "from \`gmx grompp -pp\` output of oplsaa.ff/forcefield.itp + oplsaa.ff/spce.itp."
mkdir -p "$OUT"
cp conf.gro topol.top "$OUT/"
echo "bench/make_systems.sh: $OUT ($(sed -n 2p conf.gro | tr -d ' ') atoms, box $(tail -n 1 conf.gro))"
