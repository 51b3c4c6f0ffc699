#!/usr/bin/env bash
# Makes tests/data/em: steepest-descent minimisation (integrator = steep, 50 trial steps, emtol 10) by GROMACS
# 2022 (gmx_d) on three systems that cover its paths:
#   water     spce_1k5 (SETTLE with unit masses, PME)
#   peptide   the amber99sb-ildn peptide of tests/data/bonded in vacuum (flexible, reaction field)
#   solvated  the solvated peptide with constraints = h-bonds (LINCS and SETTLE, PME)
# For each: <case>.mdp, and in reference.txt one line per accepted state (the .edr's frames): case, step,
# potential, pressure; the potential is gmx energy's Potential minus Disper. corr., because GROMACS 2022
# counts the dispersion correction twice in a minimisation's potential (GROMACS issue 5031, fixed in 2023), and
# halomd reports it once. final.txt: per case the last line of md.log's summary (Fmax, its atom, Fnorm) and
# the step count it reports. Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx_d) and python3. Usage: bash tests/make_em_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/em
mkdir -p "$OUT"

ref=$WORK/reference.txt
final=$WORK/final.txt
{
  echo "# case step potential pressure (kJ/mol, bar): each accepted state of gmx_d's steepest descent;"
  echo "# potential = gmx energy's Potential - Disper. corr. (GROMACS 2022 counts it twice in minimisation)"
  echo "# gmx_d $version; written by tests/make_em_refdata.sh"
} > "$ref"
echo "# case steps fmax fmax_atom fnorm (md.log's summary: steps as 'in N steps', kJ/mol/nm)" > "$final"
for spec in "water spce_1k5 PME none" "peptide bonded/amber99sb-ildn Reaction-Field none" \
  "solvated bonded/solvated PME h-bonds"; do
  read -r name system coulomb constraints <<< "$spec"
  printf '; written by tests/make_em_refdata.sh\nintegrator = steep\nnsteps = 50\nemtol = 10\nemstep = 0.01\n%s\n' \
    "cutoff-scheme = Verlet" > "$OUT/$name.mdp"
  printf 'nstlist = 10\ncoulombtype = %s\nrcoulomb = 1.0\nrvdw = 1.0\nDispCorr = EnerPres\nconstraints = %s\n' \
    "$coulomb" "$constraints" >> "$OUT/$name.mdp"
  (cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/$name.mdp" -c "$TESTS/data/$system/conf.gro" \
    -p "$TESTS/data/$system/topol.top" -o "$name.tpr" > "$name.grompp.log" 2>&1 &&
    "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$name.tpr" -deffnm "$name" > "$name.mdrun.log" 2>&1) ||
    { tail -20 "$WORK/$name.grompp.log" "$WORK/$name.mdrun.log"; exit 1; }
  (cd "$WORK" && printf 'Potential\nDisper.-corr.\nPressure\n\n' |
    "$GMXD" energy -f "$name.edr" -o "$name.xvg" > "$name.energy.log" 2>&1)
  python3 - "$WORK/$name.xvg" "$name" >> "$ref" << 'PY'
import re, sys
legend, rows = {}, []
for line in open(sys.argv[1]):
    m = re.match(r'@ s(\d+) legend "(.*)"', line)
    if m:
        legend[m.group(2)] = int(m.group(1)) + 1
    elif line.strip() and line[0] not in '#@':
        rows.append(line.split())
for r in rows:
    pot = float(r[legend["Potential"]]) - float(r[legend["Disper. corr."]])
    print(sys.argv[2], int(float(r[0])), f"{pot:.6f}", r[legend["Pressure"]])
PY
  python3 - "$WORK/$name.log" "$name" >> "$final" << 'PY'
import re, sys
text = open(sys.argv[1]).read()
steps = re.search(r"Fmax < \S+ in (\d+) steps", text).group(1)
fmax, atom = re.search(r"Maximum force\s+=\s+(\S+) on atom (\d+)", text).groups()
fnorm = re.search(r"Norm of force\s+=\s+(\S+)", text).group(1)
print(sys.argv[2], steps, fmax, atom, fnorm)
PY
done
mv "$ref" "$OUT/reference.txt"
mv "$final" "$OUT/final.txt"
cat "$OUT/final.txt"
