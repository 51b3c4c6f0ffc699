#!/usr/bin/env bash
# Makes tests/data/pme: the step-0 energies and pressure of SPC/E water with coulombtype = PME from GROMACS
# 2022 (gmx_d, double precision), over settings that change what PME computes (grid spacing or explicit
# grid sizes, odd ones too, B-spline order, even and odd, ewald-rtol, epsilon-r, coulomb-modifier), on the cubic spce_1k5
# box and on a rectangular box made here with gmx solvate (tests/data/pme/rect). reference.txt holds per
# case the grid gmx_d chose (from gmx dump of the .tpr) and LJ (SR), Coulomb (SR), Coul. recip., Potential
# and Pressure at step 0 (from gmx energy). test_pme.cpp runs halomd with the same options and compares.
# Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx, gmx_d) and python3. Usage: bash tests/make_pme_refdata.sh   (GMX, GMX_D override)
set -euo pipefail
NEED_GMX=1
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/pme
mkdir -p "$OUT/rect"

# A rectangular water box: SPC/E from GROMACS's spc216.gro, 3.1 x 2.6 x 2.3 nm, relaxed by 100 steps of
# steepest descent (gmx solvate leaves close contacts where the tiles meet).
(cd "$WORK" && "$GMX" -quiet solvate -cs spc216.gro -box 3.1 2.6 2.3 -o rect0.gro > solvate.log 2>&1) ||
  { tail -20 "$WORK/solvate.log"; exit 1; }
waters=$(( ($(wc -l < "$WORK/rect0.gro") - 3) / 3 ))
sed -e "s/^SOL [0-9]*$/SOL $waters/" -e "s|^; SPC/E water (OPLS-AA|; SPC/E water, rectangular box by tests/make_pme_refdata.sh (OPLS-AA|" \
  "$TESTS/data/spce_1k5/topol.top" > "$OUT/rect/topol.top"
grep -q "^SOL $waters$" "$OUT/rect/topol.top" || { echo "make_pme_refdata.sh: SOL count not set" >&2; exit 1; }
printf 'integrator = steep\nnsteps = 100\ncutoff-scheme = Verlet\ncoulombtype = PME\nrcoulomb = 1.0\nrvdw = 1.0\n' \
  > "$WORK/em.mdp"
(cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f em.mdp -c rect0.gro -p "$OUT/rect/topol.top" -o em.tpr > em.grompp.log 2>&1 &&
  "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s em.tpr -deffnm em > em.mdrun.log 2>&1) ||
  { tail -20 "$WORK/em.grompp.log" "$WORK/em.mdrun.log"; exit 1; }
cp "$WORK/em.gro" "$OUT/rect/conf.gro"

# case system key=value...   (on top of spce_1k5/nve.mdp with nsteps = 0 and coulombtype = PME)
cases=(
  "default spce_1k5"
  "order6_spacing016_rtol1e-6 spce_1k5 pme-order=6 fourierspacing=0.16 ewald-rtol=1e-6"
  "order5_grid20x24x28_epsr2 spce_1k5 pme-order=5 fourier-nx=20 fourier-ny=24 fourier-nz=28 epsilon-r=2"
  "order3_noshift_rc09 spce_1k5 pme-order=3 coulomb-modifier=None rcoulomb=0.9 rvdw=0.9"
  "rect_default rect"
  "rect_spacing010_order8 rect fourierspacing=0.10 pme-order=8"
  "rect_grid25x27x21 rect fourier-nx=25 fourier-ny=27 fourier-nz=21"
)
ref=$WORK/reference.txt
{
  echo "# case system nx ny nz lj_sr coulomb_sr coul_recip potential pressure (kJ/mol, bar; step 0)"
  echo "# gmx_d $version; written by tests/make_pme_refdata.sh; options on top of spce_1k5/nve.mdp with"
  echo "# nsteps = 0 and coulombtype = PME"
} > "$ref"
for c in "${cases[@]}"; do
  read -r name system sets <<< "$c"
  if [ "$system" = rect ]; then sysdir=$OUT/rect; else sysdir=$TESTS/data/$system; fi
  grep -v -E '^(;|nsteps|coulombtype|epsilon-rf)' "$TESTS/data/spce_1k5/nve.mdp" > "$WORK/$name.mdp"
  printf 'nsteps = 0\ncoulombtype = PME\n' >> "$WORK/$name.mdp"
  for kv in $sets; do
    key=${kv%%=*}
    sed -i "/^$key[ =]/d" "$WORK/$name.mdp"
    echo "$key = ${kv#*=}" >> "$WORK/$name.mdp"
  done
  cp "$WORK/$name.mdp" "$OUT/$name.mdp"
  (cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$name.mdp" -c "$sysdir/conf.gro" -p "$sysdir/topol.top" \
    -o "$name.tpr" -po "$name.out.mdp" > "$name.grompp.log" 2>&1) || { tail -20 "$WORK/$name.grompp.log"; exit 1; }
  (cd "$WORK" && "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$name.tpr" -deffnm "$name" \
    > "$name.mdrun.log" 2>&1) || { tail -20 "$WORK/$name.mdrun.log"; exit 1; }
  grid=$("$GMXD" dump -s "$WORK/$name.tpr" 2> /dev/null |
    awk '$1 ~ /^fourier-n[xyz]$/ { printf "%s ", $3 }')
  (cd "$WORK" && printf 'LJ-(SR)\nCoulomb-(SR)\nCoul.-recip.\nPotential\nPressure\n\n' |
    "$GMXD" energy -f "$name.edr" -o "$name.xvg" > "$name.energy.log" 2>&1)
  energies=$(python3 - "$WORK/$name.xvg" << 'PY'
import re, sys
legends, row = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'@ s(\d+) legend "(.*)"', line)
    if m:
        legends[m.group(2)] = int(m.group(1)) + 1
    elif line.strip() and line[0] not in '#@' and row is None:
        row = line.split()
print(" ".join(row[legends[t]] for t in ["LJ (SR)", "Coulomb (SR)", "Coul. recip.", "Potential", "Pressure"]))
PY
)
  echo "$name $system $grid$energies" >> "$ref"
  echo "$name $system $grid$energies"
done
mv "$ref" "$OUT/reference.txt"

# A 500-step NVE run of the default case (spce_1k5/nve.mdp with coulombtype = PME): the mean total energy and
# its drift from step 10 on (least squares, kJ/mol/ps), as tests/make_refdata.sh reports them for reaction
# field, into nve_reference.txt.
grep -v -E '^(;|coulombtype|epsilon-rf)' "$TESTS/data/spce_1k5/nve.mdp" > "$WORK/nve.mdp"
echo "coulombtype = PME" >> "$WORK/nve.mdp"
cp "$WORK/nve.mdp" "$OUT/nve.mdp"
(cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f nve.mdp -c "$TESTS/data/spce_1k5/conf.gro" \
  -p "$TESTS/data/spce_1k5/topol.top" -o nve.tpr > nve.grompp.log 2>&1 &&
  "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s nve.tpr -deffnm nve > nve.mdrun.log 2>&1) ||
  { tail -20 "$WORK/nve.grompp.log" "$WORK/nve.mdrun.log"; exit 1; }
(cd "$WORK" && printf 'Total-Energy\n\n' | "$GMXD" energy -f nve.edr -o nve.xvg > nve.energy.log 2>&1)
python3 - "$WORK/nve.xvg" "$version" > "$OUT/nve_reference.txt" << 'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l[0] not in '#@']
t = [float(r[0]) for r in rows]
e = [float(r[1]) for r in rows]
tt, ee = t[10:], e[10:]
mt, me = sum(tt) / len(tt), sum(ee) / len(ee)
slope = sum((a - mt) * (b - me) for a, b in zip(tt, ee)) / sum((a - mt) ** 2 for a in tt)
print(f"# 500-step NVE run of spce_1k5 with PME (tests/data/pme/nve.mdp), gmx_d {sys.argv[2]};")
print("# written by tests/make_pme_refdata.sh from gmx energy's Total-Energy")
print(f"nve_steps {len(rows) - 1}")
print(f"nve_total_mean {sum(e) / len(e):.10g}")
print(f"nve_total_drift_per_ps_from_step10 {slope:.10g}")
PY
cat "$OUT/nve_reference.txt"
