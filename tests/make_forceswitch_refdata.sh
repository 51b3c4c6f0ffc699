#!/usr/bin/env bash
# Makes tests/data/forceswitch: vdw-modifier = Force-switch (CHARMM36's Lennard-Jones) and Potential-switch by
# GROMACS 2022 (gmx_d) on spce_1k5 water with reaction field, rvdw-switch 0.8 (and 0.6) and rvdw 1.0, with
# DispCorr = no and EnerPres (the switched potential integrated into the correction): per case the
# step-0 terms gmx energy gives (LJ (SR), Coulomb (SR), Potential, Pressure, ...) in reference.txt, as
# "case term value", and the rlist grompp calculates for a 1x1 list with the default verlet-buffer-tolerance
# (term rlist_1x1). Every number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3.
# Usage: bash tests/make_forceswitch_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/forceswitch
mkdir -p "$OUT"
water=$TESTS/data/spce_1k5
ref=$OUT/reference.txt
{
  echo "# case term value (kJ/mol, bar, nm; step 0, GROMACS's term names with '_' for spaces)"
  echo "# gmx_d $version; written by tests/make_forceswitch_refdata.sh"
} > "$ref"
# Cases: NAME MODIFIER RVDW-SWITCH DISPCORR.
for spec in "fsw0.8 Force-switch 0.8 no" "fsw0.6 Force-switch 0.6 no" "fsw0.8_dc Force-switch 0.8 EnerPres" \
  "psw0.8 Potential-switch 0.8 no" "psw0.8_dc Potential-switch 0.8 EnerPres" "psw0.6_dc Potential-switch 0.6 EnerPres"; do
  read -r name modifier sw dispcorr <<< "$spec"
  {
    grep -v -E '^(;|nsteps|vdw-modifier|DispCorr|verlet-buffer-tolerance|rlist)' "$water/nve.mdp"
    printf 'nsteps = 0\nvdw-modifier = %s\nrvdw-switch = %s\nDispCorr = %s\n' "$modifier" "$sw" "$dispcorr"
  } > "$OUT/$name.mdp"
  (cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/$name.mdp" -c "$water/conf.gro" -p "$water/topol.top" \
    -o "$name.tpr" > "$name.grompp.log" 2>&1 &&
    "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$name.tpr" -deffnm "$name" > "$name.mdrun.log" 2>&1) ||
    { tail -n 20 "$WORK/$name.grompp.log" "$WORK/$name.mdrun.log"; exit 1; }
  (cd "$WORK" && seq 1 30 | "$GMXD" energy -f "$name.edr" -o "$name.xvg" > "$name.energy.log" 2>&1)
  python3 "$TESTS/refdata/refdata.py" first-frame "$WORK/$name.xvg" "$name" >> "$ref"
  rlist=$(sed -n 's/^Calculated rlist for 1x1 atom pair-list as \([0-9.]*\) nm.*/\1/p' "$WORK/$name.grompp.log")
  [ -n "$rlist" ] || { echo "make_forceswitch_refdata.sh: no 1x1 rlist in grompp's log" >&2; exit 1; }
  echo "$name rlist_1x1 $rlist" >> "$ref"
done
cat "$ref"

# The Verlet buffer with force-switch where LJ decides it: the LJ fluid of tests/data/lj_fluid, CHARMM's
# rvdw-switch 1.0 and rvdw 1.2, nstlist 40, verlet-buffer-tolerance 1e-4: grompp's 1x1 rlist (case lj_fsw).
lj=$TESTS/data/lj_fluid
{
  grep -v -E '^(;|nstlist|verlet-buffer-tolerance|rlist|rcoulomb|rvdw|vdw-modifier|DispCorr)' "$lj/step0.mdp"
  printf 'nstlist = 40\nverlet-buffer-tolerance = 1e-4\nrcoulomb = 1.2\nrvdw = 1.2\n'
  printf 'vdw-modifier = Force-switch\nrvdw-switch = 1.0\nDispCorr = no\n'
} > "$OUT/lj_fsw.mdp"
(cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/lj_fsw.mdp" -c "$lj/conf.gro" -p "$lj/topol.top" -o lj.tpr \
  > lj.grompp.log 2>&1) || { tail -n 20 "$WORK/lj.grompp.log"; exit 1; }
rlist=$(sed -n 's/^Calculated rlist for 1x1 atom pair-list as \([0-9.]*\) nm.*/\1/p' "$WORK/lj.grompp.log")
[ -n "$rlist" ] || { echo "make_forceswitch_refdata.sh: no 1x1 rlist for the LJ fluid" >&2; exit 1; }
echo "lj_fsw rlist_1x1 $rlist" >> "$ref"

# The same with Potential-switch (case lj_psw): the switch's third derivative at the cut-off.
sed -e 's/^vdw-modifier = Force-switch/vdw-modifier = Potential-switch/' "$OUT/lj_fsw.mdp" > "$OUT/lj_psw.mdp"
(cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/lj_psw.mdp" -c "$lj/conf.gro" -p "$lj/topol.top" -o ljp.tpr \
  > ljp.grompp.log 2>&1) || { tail -n 20 "$WORK/ljp.grompp.log"; exit 1; }
rlist=$(sed -n 's/^Calculated rlist for 1x1 atom pair-list as \([0-9.]*\) nm.*/\1/p' "$WORK/ljp.grompp.log")
[ -n "$rlist" ] || { echo "make_forceswitch_refdata.sh: no 1x1 rlist for the LJ fluid (potential-switch)" >&2; exit 1; }
echo "lj_psw rlist_1x1 $rlist" >> "$ref"
