#!/usr/bin/env bash
# Makes tests/data/dihres: the solvated amber99sb-ildn peptide of tests/data/bonded/solvated with
# [ dihedral_restraints ] on six of its dihedrals, behind #ifdef DIHRES and with the force constant a macro
# (DIHRES_FC), as CHARMM-GUI's lipid topologies have them; four restrained to values the peptide is far from,
# one with a tolerance (dphi) it lies inside, one at the tolerance's edge. nve.mdp: the bonded data's NVE
# settings (PME, 0.5 fs, no constraints), 40 steps, define = -DDIHRES -DDIHRES_FC=100. reference.txt: per step
# gmx_d's Dih. Rest., Proper Dih., potential and total energy. Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx_d), python3. Usage: bash tests/make_dihres_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
SRC=$TESTS/data/bonded/solvated
OUT=$TESTS/data/dihres
mkdir -p "$OUT"
cp "$SRC/conf.gro" "$OUT/conf.gro"
# The restraints go into the protein's molecule type, before its position restraints' include.
python3 - "$SRC/topol.top" "$OUT/topol.top" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
block = """#ifdef DIHRES
[ dihedral_restraints ]
; ai aj ak al type phi dphi kfac
    2     1     5     6    1    60    0  DIHRES_FC
    5     7     9    15    1   -60    5  DIHRES_FC
    7     9    15    17    1   150   10  DIHRES_FC
   15    17    19    25    1   -90    0  DIHRES_FC
   17    19    25    27    1     0  180  DIHRES_FC
   25    27    29    35    1   100   20  DIHRES_FC
#endif

"""
text = open(src).read()
anchor = "; Include Position restraint file"
assert text.count(anchor) == 1
open(dst, "w").write(text.replace(anchor, block + anchor))
PY
sed -e 's/^nsteps.*/nsteps = 40/' "$SRC/nve.mdp" > "$OUT/nve.mdp"
{
  echo "define = -DDIHRES -DDIHRES_FC=100"
  echo "; written by tests/make_dihres_refdata.sh"
} >> "$OUT/nve.mdp"
# The ff include resolves through GMXLIB (GROMACS's share folder), as for the bonded data.
run grompp "$GMXD" grompp -f "$OUT/nve.mdp" -c "$OUT/conf.gro" -p "$OUT/topol.top" -o nve.tpr
run mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s nve.tpr -deffnm nve
run energy sh -c "printf '%s\n' Dih.-Rest. Proper-Dih. Potential Total-Energy '' | '$GMXD' energy -f nve.edr -o nve.xvg"
{
  echo "# step dih_rest proper_dih potential total (kJ/mol): gmx_d $version, nve.mdp (40 steps of NVE);"
  echo "# written by tests/make_dihres_refdata.sh"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/nve.xvg" "Dih. Rest." "Proper Dih." Potential "Total Energy"
} > "$OUT/reference.txt"
head -5 "$OUT/reference.txt"
