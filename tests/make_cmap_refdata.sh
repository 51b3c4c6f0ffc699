#!/usr/bin/env bash
# Makes tests/data/cmap: the charmm27 test peptide of tests/data/bonded with CHARMM's CMAP correction (gmx
# pdb2gmx without -nocmap: a [ cmap ] term per pair of backbone dihedrals, the grids from charmm27.ff's
# cmap.itp). conf.gro is the bonded data's relaxed charmm27 peptide (the same atoms), moved by 100 steps of
# 300 K MD (gmx_d) so that its phi/psi pairs lie inside grid cells, not on the relaxed structure's; gmx_d's
# step-0 energy terms (the bonded data's reaction-field step0.mdp) go to reference.txt and its forces to
# forces.txt; a 200-step NVE run of 1 fs (nve.mdp) gives the path of CMAP Dih. and the total energy
# (nve.txt). Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx, gmx_d), python3. Usage: bash tests/make_cmap_refdata.sh
set -euo pipefail
NEED_GMX=1
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
SRC=$TESTS/data/bonded/charmm27
OUT=$TESTS/data/cmap
mkdir -p "$OUT"

python3 "$TESTS/refdata/peptide_pdb.py" "$WORK/peptide.pdb"
run pdb2gmx "$GMX" pdb2gmx -f peptide.pdb -o pdb.gro -p cmap.top -i posre.itp -ff charmm27 -water tip3p -ignh
grep -q "^\[ cmap \]" "$WORK/cmap.top" || { echo "make_cmap_refdata.sh: pdb2gmx wrote no [ cmap ]" >&2; exit 1; }
{ echo "; charmm27 topology of the test peptide by gmx pdb2gmx, with CMAP (tests/make_cmap_refdata.sh)"
  awk 'body || !/^;/ { body = 1; print }' "$WORK/cmap.top" | sed '/posre.itp/,+0d; /^#ifdef POSRES/,/^#endif/d'; } \
  > "$OUT/topol.top"
cp "$TESTS/data/bonded/step0.mdp" "$OUT/step0.mdp"

# 100 steps of 1 fs from 300 K velocities: the start structure, with velocities.
cat > "$WORK/move.mdp" << 'MDP'
integrator = md
dt = 0.001
nsteps = 100
coulombtype = Reaction-Field
epsilon-rf = 0
cutoff-scheme = Verlet
rcoulomb = 1.0
rvdw = 1.0
tcoupl = no
gen-vel = yes
gen-temp = 300
gen-seed = 17
constraints = none
MDP
run move_grompp "$GMXD" grompp -maxwarn 0 -f move.mdp -c "$SRC/conf.gro" -p "$OUT/topol.top" -o move.tpr
run move_mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s move.tpr -deffnm move
cp "$WORK/move.gro" "$OUT/conf.gro"

ref=$OUT/reference.txt
{
  echo "# case term value (kJ/mol, bar; step 0 of step0.mdp, GROMACS's term names with '_' for spaces)"
  echo "# gmx_d $version; written by tests/make_cmap_refdata.sh"
} > "$ref"
run grompp "$GMXD" grompp -maxwarn 0 -f "$OUT/step0.mdp" -c "$OUT/conf.gro" -p "$OUT/topol.top" -o step0.tpr
run mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s step0.tpr -deffnm step0
(cd "$WORK" && seq 1 30 | "$GMXD" energy -f step0.edr -o step0.xvg > step0.energy.log 2>&1)
python3 "$TESTS/refdata/refdata.py" first-frame "$WORK/step0.xvg" cmap >> "$ref"
grep -q "^cmap CMAP_Dih. " "$ref" || { echo "make_cmap_refdata.sh: no CMAP Dih. term" >&2; exit 1; }
"$GMXD" dump -f "$WORK/step0.trr" 2> /dev/null | sed -n 's/^ *f\[ *[0-9]*\]={\(.*\)}/\1/p' | tr -d ',' \
  > "$OUT/forces.txt"
[ "$(wc -l < "$OUT/forces.txt")" = "$(sed -n 2p "$OUT/conf.gro" | tr -d ' ')" ] ||
  { echo "make_cmap_refdata.sh: forces not read from the .trr" >&2; exit 1; }

# 200 steps of NVE (1 fs, the step0.mdp settings): CMAP Dih. and the total energy every 10 steps.
sed -e 's/^nsteps = 0/nsteps = 200/' -e 's/^dt = .*/dt = 0.001/' -e 's/^nstcalcenergy = .*/nstcalcenergy = 10/' \
  -e 's/^nstenergy = .*/nstenergy = 10/' -e '/^nstfout/d' "$OUT/step0.mdp" > "$OUT/nve.mdp"
sed -i '1s/.*/; written by tests\/make_cmap_refdata.sh: step0.mdp run for 200 steps of 1 fs/' "$OUT/nve.mdp"
run nve_grompp "$GMXD" grompp -maxwarn 0 -f "$OUT/nve.mdp" -c "$OUT/conf.gro" -p "$OUT/topol.top" -o nve.tpr
run nve_mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s nve.tpr -deffnm nve
(cd "$WORK" && printf 'CMAP-Dih.\nTotal-Energy\n\n' | "$GMXD" energy -f nve.edr -o nve.xvg > nve.energy.log 2>&1)
{
  echo "# step cmap_dih total (kJ/mol): gmx_d $version, nve.mdp; written by tests/make_cmap_refdata.sh"
  awk '!/^[#@]/ && NF >= 3 { printf "%d %s %s\n", $1 / 0.001 + 0.5, $2, $3 }' "$WORK/nve.xvg"
} > "$OUT/nve.txt"
echo "make_cmap_refdata.sh: wrote $OUT"
