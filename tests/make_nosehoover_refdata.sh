#!/usr/bin/env bash
# Makes tests/data/nosehoover: Nose-Hoover temperature coupling (leap-frog, no chains) by GROMACS 2022 (gmx_d).
# The thermostat is deterministic, so both codes follow one path:
#   water.mdp       spce_1k5 (SETTLE), one group, tau-t 0.5 ps, ref-t 350 K (about 50 K above the start, so the
#                   thermostat works), coupling every step, 60 steps of 2 fs with a search at every step (the
#                   fixed rlist 1.1 nm over 10 steps misses a pair that GROMACS's cluster list holds at
#                   step 8, after which the two paths part by 1e-6: both codes then list the same pairs);
#   water_nst5.mdp  the same with nsttcouple = 5 (GROMACS's friction times nsttcouple at coupling steps);
#   two_groups.mdp  the solvated peptide of tests/data/bonded with h-bonds, tc-grps = Protein Non-Protein,
#                   tau-t 0.1 0.2, ref-t 320 280, 40 steps of 0.5 fs.
# <case>.txt has per step the total and conserved energy and the temperature (per group for two_groups).
# Every number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3.
# Usage: bash tests/make_nosehoover_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/nosehoover
mkdir -p "$OUT"

water=$TESTS/data/spce_1k5
peptide=$TESTS/data/bonded/solvated
grep -v -E '^(;|nsteps|nstlist|tcoupl)' "$water/nve.mdp" > "$OUT/water.mdp"
printf 'nsteps = 60\nnstlist = 1\ntcoupl = nose-hoover\ntc-grps = System\ntau-t = 0.5\nref-t = 350\nnsttcouple = 1\n' \
  >> "$OUT/water.mdp"
sed 's/^nsttcouple = 1$/nsttcouple = 5/' "$OUT/water.mdp" > "$OUT/water_nst5.mdp"
grep -v -E '^(;|nsteps|tcoupl|tc-grps|tau-t|ref-t)' "$peptide/hbonds_step0.mdp" > "$OUT/two_groups.mdp"
printf 'nsteps = 40\ntcoupl = nose-hoover\ntc-grps = Protein Non-Protein\ntau-t = 0.1 0.2\nref-t = 320 280\n' \
  >> "$OUT/two_groups.mdp"
printf 'nsttcouple = 1\n' >> "$OUT/two_groups.mdp"

# case SYSTEM_DIR TERMS...: runs gmx_d and writes <case>.txt with the terms per step.
case_run() {
  local name=$1 dir=$2
  shift 2
  (cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/$name.mdp" -c "$dir/conf.gro" -p "$dir/topol.top" \
    -o "$name.tpr" > "$name.grompp.log" 2>&1 &&
    "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$name.tpr" -deffnm "$name" > "$name.mdrun.log" 2>&1) ||
    { tail -n 20 "$WORK/$name.grompp.log" "$WORK/$name.mdrun.log"; exit 1; }
  (cd "$WORK" && printf '%s\n' "$@" "" | "$GMXD" energy -f "$name.edr" -o "$name.xvg" > "$name.energy.log" 2>&1)
  # gmx energy's legends: the selection names with the first '-' as a space for the two energies.
  local legends=()
  for t in "$@"; do
    case $t in Total-Energy | Conserved-En.) legends+=("${t/-/ }") ;; *) legends+=("$t") ;; esac
  done
  {
    echo "# step $*: gmx_d $version, $name.mdp; written by tests/make_nosehoover_refdata.sh"
    python3 "$TESTS/refdata/refdata.py" columns "$WORK/$name.xvg" "${legends[@]}"
  } > "$OUT/$name.txt"
}
case_run water "$water" Total-Energy Conserved-En. Temperature
case_run water_nst5 "$water" Total-Energy Conserved-En. Temperature
case_run two_groups "$peptide" Total-Energy Conserved-En. T-Protein T-non-Protein
head -3 "$OUT/water.txt" "$OUT/two_groups.txt"
