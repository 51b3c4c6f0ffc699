#!/usr/bin/env bash
# Makes tests/data/martini: a coarse-grained system in the style of Martini (4-to-1 beads of 72 u, comb-rule 2,
# reaction field with epsilon-r 15, 1.1 nm cut-offs, 20 fs steps) with the interaction types Martini's
# topologies add to the atomistic ones: [ bonds ] 6 (harmonic without exclusions: elastic networks and
# martinize's rubber bands) and [ angles ] 10 (restricted bending, Martini 3's backbone angles), beside bonds 1,
# angles 2 (G96) and dihedrals 1. The model is made up here (halomd ships no force field): 30 six-bead chains
# (one charged bead each) with 30 counter-ions in 1500 water beads, from gmx insert-molecules, minimised and
# equilibrated 20 ps at 310 K by gmx_d. Files: conf.gro, topol.top, step0.mdp (nsteps 0) and nve.mdp (40
# steps of NVE, energies every step); reference.txt: per step of gmx_d's NVE run the listed terms, LJ (SR),
# Coulomb (SR), potential, total energy and pressure. Every number is read from GROMACS output. Needs GROMACS
# 2022 (gmx, gmx_d), python3. Usage: bash tests/make_martini_refdata.sh
set -euo pipefail
NEED_GMX=1
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/martini
mkdir -p "$OUT"

cat > "$OUT/topol.top" <<'TOP'
; A Martini-style coarse-grained test system (tests/make_martini_refdata.sh); not a published force field.
[ defaults ]
; nbfunc comb-rule gen-pairs
  1      2         no

[ atomtypes ]
; name mass charge ptype sigma epsilon
  P4   72.0  0.000  A     0.47  5.0
  C1   72.0  0.000  A     0.47  3.5
  N0   72.0  0.000  A     0.47  3.5
  Qd   72.0  0.000  A     0.47  5.0
  Qa   72.0  0.000  A     0.47  5.0

[ nonbond_params ]
; i j funct sigma epsilon
  C1 P4  1    0.47  2.0
  Qd Qa  1    0.47  5.6

[ moleculetype ]
; name nrexcl
  CHN  1

[ atoms ]
; nr type resnr residue atom cgnr charge
  1   Qd   1     CHN     Q1   1    1.0
  2   N0   1     CHN     B2   2    0.0
  3   C1   1     CHN     B3   3    0.0
  4   C1   1     CHN     B4   4    0.0
  5   C1   1     CHN     B5   5    0.0
  6   N0   1     CHN     B6   6    0.0

[ bonds ]
; i j funct b0 kb
  1 2 1 0.47 1250
  2 3 1 0.47 1250
  3 4 1 0.47 1250
  4 5 1 0.47 1250
  5 6 1 0.47 1250
; a rubber band: harmonic, without exclusions
  1 4 6 1.05 500
  2 5 6 1.05 500

[ angles ]
; i j k funct theta0 k
  1 2 3 10 130 25
  2 3 4 10 130 25
  3 4 5 2  180 25
  4 5 6 2  120 45

[ dihedrals ]
; i j k l funct phi_s k n
  1 2 3 4 1 0 5 1
  3 4 5 6 1 180 3 2

[ moleculetype ]
  W    1
[ atoms ]
  1   P4   1     W       W    1    0.0

[ moleculetype ]
  CL   0
[ atoms ]
  1   Qa   1     ION     CL   1   -1.0

[ system ]
Martini-style chains in water

[ molecules ]
CHN 30
CL  30
W   1500
TOP

# One chain, a zig-zag of 0.47 nm bonds at 130 degrees, and single beads.
python3 - "$WORK" <<'PY'
import math, sys
work = sys.argv[1]
half = math.radians(130) / 2
x = [(i * 0.47 * math.sin(half), (i % 2) * 0.47 * math.cos(half), 0.0) for i in range(6)]
names = ["Q1", "B2", "B3", "B4", "B5", "B6"]
def gro(path, res, atoms):
    with open(path, "w") as f:
        f.write("one\n%5d\n" % len(atoms))
        for k, (n, p) in enumerate(atoms):
            f.write("%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n" % (1, res, n, k + 1, p[0], p[1], p[2]))
        f.write("   3.00000   3.00000   3.00000\n")
gro(work + "/chn.gro", "CHN", list(zip(names, x)))
gro(work + "/w.gro", "W", [("W", (0.0, 0.0, 0.0))])
gro(work + "/cl.gro", "ION", [("CL", (0.0, 0.0, 0.0))])
PY
run insert_chn "$GMX" insert-molecules -ci chn.gro -nmol 30 -box 6 6 6 -radius 0.21 -seed 11 -o a.gro
run insert_cl "$GMX" insert-molecules -f a.gro -ci cl.gro -nmol 30 -radius 0.21 -seed 12 -o b.gro
run insert_w "$GMX" insert-molecules -f b.gro -ci w.gro -nmol 1500 -try 200 -radius 0.21 -seed 13 -o c.gro

common='cutoff-scheme = Verlet
coulombtype = reaction-field
rcoulomb = 1.1
epsilon-r = 15
epsilon-rf = 0
vdw-modifier = Potential-shift-verlet
rvdw = 1.1'
printf '%s\nintegrator = steep\nnsteps = 2000\nemtol = 100\n' "$common" > "$WORK/em.mdp"
printf '%s\nintegrator = md\ndt = 0.02\nnsteps = 1000\nnstlist = 20\ntcoupl = v-rescale\ntc-grps = System\ntau-t = 1.0\nref-t = 310\ngen-vel = yes\ngen-temp = 310\ngen-seed = 5\n' \
  "$common" > "$WORK/eq.mdp"
run em_grompp "$GMXD" grompp -f em.mdp -c c.gro -p "$OUT/topol.top" -o em.tpr
run em "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s em.tpr -deffnm em
run eq_grompp "$GMXD" grompp -f eq.mdp -c em.gro -p "$OUT/topol.top" -o eq.tpr
run eq "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s eq.tpr -deffnm eq
cp "$WORK/eq.gro" "$OUT/conf.gro"

{
  echo "; written by tests/make_martini_refdata.sh"
  echo "$common"
  printf 'integrator = md\ndt = 0.02\nnsteps = 0\nnstlist = 20\ncontinuation = yes\nnstcalcenergy = 1\nnstenergy = 1\n'
  printf 'verlet-buffer-tolerance = -1\nrlist = 1.3\ntcoupl = v-rescale\ntc-grps = System\ntau-t = 1.0\nref-t = 310\n'
} > "$OUT/step0.mdp"
sed -e 's/^nsteps = 0/nsteps = 40/' -e '/^tcoupl/d;/^tc-grps/d;/^tau-t/d;/^ref-t/d' -e 's/^nstlist = 20/nstlist = 1/' \
  "$OUT/step0.mdp" > "$OUT/nve.mdp"

run nve_grompp "$GMXD" grompp -f "$OUT/nve.mdp" -c "$OUT/conf.gro" -p "$OUT/topol.top" -o nve.tpr
run nve "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s nve.tpr -deffnm nve
run nve_energy sh -c "printf '%s\n' Bond Harmonic-Pot. G96Angle Restr.-Angles Proper-Dih. 'LJ-(SR)' \
  'Coulomb-(SR)' Potential Total-Energy Pressure '' | '$GMXD' energy -f nve.edr -o nve.xvg"
{
  echo "# step bond harmonic_pot g96angle restricted_angles proper_dih lj_sr coulomb_sr potential total"
  echo "# pressure (kJ/mol, bar): gmx_d $version, nve.mdp (40 steps of NVE, a search every step);"
  echo "# written by tests/make_martini_refdata.sh"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/nve.xvg" Bond "Harmonic Pot." G96Angle \
    "Restr. Angles" "Proper Dih." "LJ (SR)" "Coulomb (SR)" Potential "Total Energy" Pressure
} > "$OUT/reference.txt"
head -5 "$OUT/reference.txt"
