#!/usr/bin/env bash
# Makes tests/data/parrinello: Parrinello-Rahman pressure coupling (leap-frog) by GROMACS 2022 (gmx_d) on
# spce_1k5 water, with deterministic thermostats so that both codes follow one path (a search every step, as
# tests/data/nosehoover, so that both list the same pairs), 60 steps of 2 fs from the water's state:
#   iso.mdp        isotropic, tau-p 1 ps, Nose-Hoover 300 K (tau-t 0.5), both coupled every step;
#   iso_nst5.mdp   the same, both every 5 steps (the barostat reads the pressure of the step before);
#   semi.mdp       semi-isotropic (xy and z apart), every step;
#   vrescale.mdp   isotropic with v-rescale at ref-t 0 (no noise: the factor path of the update).
# <case>.txt has per step the total and conserved energy, the pressure, the volume and the box's x and z.
# Every number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3.
# Usage: bash tests/make_parrinello_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/parrinello
mkdir -p "$OUT"
water=$TESTS/data/spce_1k5

base() {  # base NSTCOUPLE: the water's nve.mdp with a search every step and the barostat
  grep -v -E '^(;|nsteps|nstlist|tcoupl)' "$water/nve.mdp"
  printf 'nsteps = 60\nnstlist = 1\npcoupl = Parrinello-Rahman\ntau-p = 1.0\nnstpcouple = %s\n' "$1"
}
nh() { printf 'tcoupl = nose-hoover\ntc-grps = System\ntau-t = 0.5\nref-t = 300\nnsttcouple = %s\n' "$1"; }
{ base 1; nh 1; printf 'pcoupltype = isotropic\ncompressibility = 4.5e-5\nref-p = 1\n'; } > "$OUT/iso.mdp"
{ base 5; nh 5; printf 'pcoupltype = isotropic\ncompressibility = 4.5e-5\nref-p = 1\n'; } > "$OUT/iso_nst5.mdp"
{ base 1; nh 1; printf 'pcoupltype = semiisotropic\ncompressibility = 4.5e-5 9e-5\nref-p = 1 200\n'; } \
  > "$OUT/semi.mdp"
{
  base 1
  printf 'tcoupl = v-rescale\ntc-grps = System\ntau-t = 1.0\nref-t = 0\nnsttcouple = 1\n'
  printf 'pcoupltype = isotropic\ncompressibility = 4.5e-5\nref-p = 1\n'
} > "$OUT/vrescale.mdp"

for name in iso iso_nst5 semi vrescale; do
  (cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/$name.mdp" -c "$water/conf.gro" -p "$water/topol.top" \
    -o "$name.tpr" > "$name.grompp.log" 2>&1 &&
    "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$name.tpr" -deffnm "$name" > "$name.mdrun.log" 2>&1) ||
    { tail -n 20 "$WORK/$name.grompp.log" "$WORK/$name.mdrun.log"; exit 1; }
  (cd "$WORK" && printf 'Total-Energy\nConserved-En.\nPressure\nVolume\nBox-X\nBox-Z\n\n' |
    "$GMXD" energy -f "$name.edr" -o "$name.xvg" > "$name.energy.log" 2>&1)
  {
    echo "# step total conserved pressure volume box_x box_z: gmx_d $version, $name.mdp;"
    echo "# written by tests/make_parrinello_refdata.sh"
    python3 "$TESTS/refdata/refdata.py" columns "$WORK/$name.xvg" "Total Energy" "Conserved En." Pressure Volume \
      Box-X Box-Z
  } > "$OUT/$name.txt"
done
head -4 "$OUT/iso.txt"
