#!/usr/bin/env bash
# Makes tests/data/efield: GROMACS 2022's (gmx_d) applied electric field (electric-field-x/-y/-z: E0 omega t0
# sigma), NVE with a search every step, 40 steps, energies every step. reference.txt has per case and step the
# potential, total energy (which the field's work moves: GROMACS counts no energy for it), temperature and
# pressure (the field has no virial in GROMACS):
#   static       spce_1k5 (its nve.mdp), electric-field-x = 0.5 0 0 0: a static 0.5 V/nm along x
#   alternating  spce_1k5, electric-field-y = 1 100 0 0 (cos(omega t)) and electric-field-z = 2 150 0.02 0.01
#                (a Gaussian pulse at 0.02 ps)
#   tip4p        vsite/tip4p (its nve.mdp): the static field on the charged virtual sites, spread to their atoms
# Every number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3. Usage:
# bash tests/make_efield_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/efield
mkdir -p "$OUT"

# write_mdp NAME SOURCE-MDP KEY=VALUE...: the source with a search and energies every step, 40 steps, and the
# given options.
write_mdp() {
  local name=$1 src=$2
  shift 2
  grep -v -E '^(;|nsteps|nstlist|nstenergy|nstcalcenergy)' "$src" > "$OUT/$name.mdp"
  printf 'nsteps = 40\nnstlist = 1\nnstcalcenergy = 1\nnstenergy = 1\n' >> "$OUT/$name.mdp"
  set_mdp_options "$OUT/$name.mdp" "$@"
}
write_mdp static "$TESTS/data/spce_1k5/nve.mdp" "electric-field-x=0.5 0 0 0"
write_mdp alternating "$TESTS/data/spce_1k5/nve.mdp" "electric-field-y=1 100 0 0" "electric-field-z=2 150 0.02 0.01"
write_mdp tip4p "$TESTS/data/vsite/tip4p/nve.mdp" "electric-field-x=0.5 0 0 0"

{
  echo "# case step potential total temperature pressure (kJ/mol, K, bar): gmx_d $version;"
  echo "# written by tests/make_efield_refdata.sh"
} > "$WORK/reference.txt"
for spec in static:spce_1k5 alternating:spce_1k5 tip4p:vsite/tip4p; do
  name=${spec%%:*}
  sys=$TESTS/data/${spec#*:}
  run "$name.grompp" "$GMXD" grompp -f "$OUT/$name.mdp" -c "$sys/conf.gro" -p "$sys/topol.top" -o "$name.tpr"
  run "$name.mdrun" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$name.tpr" -deffnm "$name"
  run "$name.energy" sh -c "printf 'Potential\nTotal-Energy\nTemperature\nPressure\n\n' |
    '$GMXD' energy -f $name.edr -o $name.xvg"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/$name.xvg" Potential "Total Energy" Temperature Pressure |
    sed "s/^/$name /" >> "$WORK/reference.txt"
done
mv "$WORK/reference.txt" "$OUT/reference.txt"
head -4 "$OUT/reference.txt"
