#!/usr/bin/env bash
# Makes tests/data/tcgroups: two temperature-coupling groups (tc-grps = Protein Non-Protein) on the solvated
# peptide of tests/data/bonded (h-bonds constrained) by GROMACS 2022 (gmx_d). With ref-t = 0 0 the two
# v-rescale thermostats have no noise, so both codes follow one path (tau-t 0.1 and 0.2, coupling every step):
# reference.txt has per step the total and conserved energy and T-Protein, T-non-Protein over 20 steps;
# ndf.txt the degrees of freedom grompp gives each group. Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx_d), python3. Usage: bash tests/make_tcgroups_refdata.sh
set -euo pipefail
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$TESTS/data/tcgroups
SYS=$TESTS/data/bonded/solvated
GMXD=${GMX_D:-gmx_d}
command -v "$GMXD" > /dev/null || { echo "make_tcgroups_refdata.sh: $GMXD not found" >&2; exit 1; }
version=$("$GMXD" --version 2> /dev/null | sed -n 's/^GROMACS version: *//p')
[[ $version == 2022* ]] || { echo "make_tcgroups_refdata.sh: needs GROMACS 2022, $GMXD is $version" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/halomd_tcgroups.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
grep -v -E '^(;|nsteps|tcoupl|tc-grps|tau-t|ref-t)' "$SYS/hbonds_step0.mdp" > "$OUT/two_groups.mdp"
printf 'nsteps = 20\ntcoupl = v-rescale\ntc-grps = Protein Non-Protein\ntau-t = 0.1 0.2\nref-t = 0 0\nnsttcouple = 1\n' \
  >> "$OUT/two_groups.mdp"
(cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/two_groups.mdp" -c "$SYS/conf.gro" -p "$SYS/topol.top" -o tg.tpr \
  > grompp.log 2>&1 && "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s tg.tpr -deffnm tg > mdrun.log 2>&1) ||
  { tail -20 "$WORK/grompp.log" "$WORK/mdrun.log"; exit 1; }
{
  echo "# group ndf: grompp's 'Number of degrees of freedom in T-Coupling group', gmx_d $version"
  sed -n 's/^Number of degrees of freedom in T-Coupling group \(.*\) is \([0-9.]*\)$/\1 \2/p' "$WORK/grompp.log"
} > "$OUT/ndf.txt"
(cd "$WORK" && printf 'Total-Energy\nConserved-En.\nT-Protein\nT-non-Protein\n\n' |
  "$GMXD" energy -f tg.edr -o tg.xvg > energy.log 2>&1)
{
  echo "# step total conserved t_protein t_non_protein (kJ/mol, K): gmx_d $version, two_groups.mdp;"
  echo "# written by tests/make_tcgroups_refdata.sh"
  python3 - "$WORK/tg.xvg" << 'PY'
import re, sys
legend, rows = {}, []
for line in open(sys.argv[1]):
    m = re.match(r'@ s(\d+) legend "(.*)"', line)
    if m:
        legend[m.group(2)] = int(m.group(1)) + 1
    elif line.strip() and line[0] not in '#@':
        rows.append(line.split())
for step, r in enumerate(rows):
    print(step, *(r[legend[t]] for t in ["Total Energy", "Conserved En.", "T-Protein", "T-non-Protein"]))
PY
} > "$OUT/reference.txt"
cat "$OUT/ndf.txt"

# The same two thermostats on groups of an index file (grompp -n): index.ndx from gmx make_ndx, First_half
# (atoms 1-60, part of the peptide) and Rest (the others); ndf_index.txt and reference_index.txt as above.
GMX=${GMX:-gmx}
rm -f "$OUT/index.ndx"
(cd "$WORK" && printf 'a 1-60\nname 15 First_half\n! 15\nname 16 Rest\nq\n' |
  "$GMX" make_ndx -f "$SYS/conf.gro" -o "$OUT/index.ndx" > make_ndx.log 2>&1) || { tail -20 "$WORK/make_ndx.log"; exit 1; }
sed 's/^tc-grps = .*/tc-grps = First_half Rest/' "$OUT/two_groups.mdp" > "$OUT/index_groups.mdp"
(cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/index_groups.mdp" -c "$SYS/conf.gro" -p "$SYS/topol.top" \
  -n "$OUT/index.ndx" -o ix.tpr > grompp_ix.log 2>&1 &&
  "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s ix.tpr -deffnm ix > mdrun_ix.log 2>&1) ||
  { tail -20 "$WORK/grompp_ix.log" "$WORK/mdrun_ix.log"; exit 1; }
{
  echo "# group ndf: grompp's 'Number of degrees of freedom in T-Coupling group', gmx_d $version, -n index.ndx"
  sed -n 's/^Number of degrees of freedom in T-Coupling group \(.*\) is \([0-9.]*\)$/\1 \2/p' "$WORK/grompp_ix.log"
} > "$OUT/ndf_index.txt"
(cd "$WORK" && printf 'Total-Energy\nConserved-En.\nT-First_half\nT-Rest\n\n' |
  "$GMXD" energy -f ix.edr -o ix.xvg > energy_ix.log 2>&1)
{
  echo "# step total conserved t_first_half t_rest (kJ/mol, K): gmx_d $version, index_groups.mdp -n index.ndx;"
  echo "# written by tests/make_tcgroups_refdata.sh"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/ix.xvg" "Total Energy" "Conserved En." T-First_half T-Rest
} > "$OUT/reference_index.txt"
cat "$OUT/ndf_index.txt"
