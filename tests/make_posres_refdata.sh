#!/usr/bin/env bash
# Makes tests/data/posres: the amber99sb-ildn peptide of tests/data/bonded with position restraints on its
# heavy atoms (gmx genrestr on the Protein-H group, force constants 1000 700 400 kJ/mol/nm^2 so that the
# dimensions differ), included by topol.top's #ifdef POSRES as pdb2gmx writes it. ref.gro is the bonded
# data's structure (the restraints' reference, grompp -r); conf.gro the same peptide after 50 steps of 300 K
# MD (gmx_d), so that every restrained atom is off its reference. gmx_d's step-0 energy terms and pressure
# with define = -DPOSRES (step0.mdp: the bonded data's reaction-field step0.mdp plus the define) go to
# reference.txt; the same with refcoord-scaling = com (case posres_com); and an NPT path of the solvated peptide
# restrained with refcoord-scaling = com (solvated/). Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx, gmx_d), python3. Usage: bash tests/make_posres_refdata.sh
set -euo pipefail
NEED_GMX=1
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
SRC=$TESTS/data/bonded/amber99sb-ildn
OUT=$TESTS/data/posres
mkdir -p "$OUT"

cp "$SRC/conf.gro" "$OUT/ref.gro"
cp "$SRC/topol.top" "$OUT/topol.top"
# Group 2 of gmx's default index groups is Protein-H (the heavy atoms).
rm -f "$OUT/posre.itp"
(cd "$WORK" && echo 2 | "$GMX" genrestr -f "$OUT/ref.gro" -o "$OUT/posre.itp" -fc 1000 700 400 > genrestr.log 2>&1) ||
  { tail -20 "$WORK/genrestr.log" >&2; exit 1; }
grep -q "position_restraints" "$OUT/posre.itp"

# 50 steps of 1 fs from 300 K velocities, without restraints: the start structure.
cat > "$WORK/move.mdp" << 'MDP'
integrator = md
dt = 0.001
nsteps = 50
coulombtype = Reaction-Field
epsilon-rf = 0
cutoff-scheme = Verlet
rcoulomb = 1.0
rvdw = 1.0
tcoupl = no
gen-vel = yes
gen-temp = 300
gen-seed = 11
constraints = none
MDP
run move_grompp "$GMXD" grompp -maxwarn 0 -f move.mdp -c "$OUT/ref.gro" -p "$OUT/topol.top" -o move.tpr
run move_mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s move.tpr -deffnm move
cp "$WORK/move.gro" "$OUT/conf.gro"

{
  echo "; written by tests/make_posres_refdata.sh: tests/data/bonded/step0.mdp with the heavy atoms restrained"
  grep -v '^;' "$TESTS/data/bonded/step0.mdp"
  echo "define = -DPOSRES"
} > "$OUT/step0.mdp"
run step0_grompp "$GMXD" grompp -maxwarn 0 -f "$OUT/step0.mdp" -c "$OUT/conf.gro" -r "$OUT/ref.gro" \
  -p "$OUT/topol.top" -o step0.tpr
run step0_mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s step0.tpr -deffnm step0
(cd "$WORK" && seq 1 30 | "$GMXD" energy -f step0.edr -o step0.xvg > step0.energy.log 2>&1)
{
  echo "# case term value (kJ/mol, bar; step 0, GROMACS's term names with '_' for spaces)"
  echo "# gmx_d $version; written by tests/make_posres_refdata.sh"
  python3 "$TESTS/refdata/refdata.py" first-frame "$WORK/step0.xvg" posres
} > "$OUT/reference.txt"
grep -q "Position_Rest." "$OUT/reference.txt" || { echo "make_posres_refdata.sh: no Position Rest. term" >&2; exit 1; }

# refcoord-scaling = com: the same step 0 (energies equal; the virial takes the references relative to their
# centre of mass, so the pressure differs), case posres_com in reference.txt.
sed 's/^define = -DPOSRES$/define = -DPOSRES\nrefcoord-scaling = com/' "$OUT/step0.mdp" > "$OUT/step0_com.mdp"
run com_grompp "$GMXD" grompp -maxwarn 0 -f "$OUT/step0_com.mdp" -c "$OUT/conf.gro" -r "$OUT/ref.gro" \
  -p "$OUT/topol.top" -o com.tpr
run com_mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s com.tpr -deffnm com
(cd "$WORK" && seq 1 30 | "$GMXD" energy -f com.edr -o com.xvg > com.energy.log 2>&1)
python3 "$TESTS/refdata/refdata.py" first-frame "$WORK/com.xvg" posres_com >> "$OUT/reference.txt"

# NPT with the heavy atoms restrained (refcoord-scaling = com): the solvated peptide of tests/data/bonded,
# Parrinello-Rahman and Nose-Hoover (deterministic), h-bonds, a search every step, 40 steps of 1 fs from its
# own structure as reference; per step total, conserved, Position Rest., pressure and volume in npt.txt.
mkdir -p "$OUT/solvated"
cp "$TESTS/data/bonded/solvated/conf.gro" "$TESTS/data/bonded/solvated/topol.top" "$OUT/posre.itp" "$OUT/solvated/"
{
  echo "; written by tests/make_posres_refdata.sh"
  grep -v -E '^(;|nsteps|nstlist|dt|tcoupl|continuation)' "$TESTS/data/bonded/solvated/hbonds_step0.mdp"
  printf 'define = -DPOSRES\nrefcoord-scaling = com\ndt = 0.001\nnsteps = 40\nnstlist = 1\ncontinuation = yes\n'
  printf 'tcoupl = nose-hoover\ntc-grps = System\ntau-t = 0.5\nref-t = 300\nnsttcouple = 1\n'
  printf 'pcoupl = Parrinello-Rahman\ntau-p = 1.0\ncompressibility = 4.5e-5\nref-p = 1\nnstpcouple = 1\n'
} > "$OUT/solvated/npt.mdp"
run npt_grompp "$GMXD" grompp -maxwarn 0 -f "$OUT/solvated/npt.mdp" -c "$OUT/solvated/conf.gro" \
  -r "$OUT/solvated/conf.gro" -p "$OUT/solvated/topol.top" -o npt.tpr
run npt_mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s npt.tpr -deffnm npt
(cd "$WORK" && printf 'Total-Energy\nConserved-En.\nPosition-Rest.\nPressure\nVolume\n\n' |
  "$GMXD" energy -f npt.edr -o npt.xvg > npt.energy.log 2>&1)
{
  echo "# step total conserved posres pressure volume: gmx_d $version, solvated/npt.mdp;"
  echo "# written by tests/make_posres_refdata.sh"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/npt.xvg" "Total Energy" "Conserved En." "Position Rest." \
    Pressure Volume
} > "$OUT/solvated/npt.txt"
echo "make_posres_refdata.sh: wrote $OUT"

# refcoord-scaling = com with the waters restrained too (-DPOSRES -DPOSRES_WATER): grompp counts each
# [ molecules ] run by its first molecule only for the centre of mass. Step 0 of the solvated peptide with the
# NPT run's last frame as reference (every restrained atom off it), case solvated_water_com in reference.txt.
sed 's/^define = -DPOSRES$/define = -DPOSRES -DPOSRES_WATER/; s/^nsteps = 40$/nsteps = 0/' "$OUT/solvated/npt.mdp" \
  > "$OUT/solvated/step0_water.mdp"
cp "$WORK/npt.gro" "$OUT/solvated/ref_water.gro"
run water_grompp "$GMXD" grompp -maxwarn 0 -f "$OUT/solvated/step0_water.mdp" -c "$OUT/solvated/conf.gro" \
  -r "$OUT/solvated/ref_water.gro" -p "$OUT/solvated/topol.top" -o water.tpr
run water_mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s water.tpr -deffnm water
(cd "$WORK" && seq 1 30 | "$GMXD" energy -f water.edr -o water.xvg > water.energy.log 2>&1)
python3 "$TESTS/refdata/refdata.py" first-frame "$WORK/water.xvg" solvated_water_com >> "$OUT/reference.txt"
