#!/usr/bin/env bash
# Makes tests/data/sd: integrator = sd (GROMACS 2022's leap-frog stochastic dynamics) by gmx_d. With ref-t = 0
# the noise is zero and the friction alone acts, so the path is GROMACS's step by step: SPC/E water (spce_1k5,
# SETTLE: the two-pass form with constraints; water.mdp) and the solvated peptide with h-bonds and two groups
# of different tau-t (peptide.mdp): step, total energy and each group's temperature in <case>.txt. At 300 K
# the noise differs (GROMACS's ThreeFry numbers), so 20 ps of spce_1k5 (hot.mdp) give only the mean
# temperature and its standard deviation (hot.txt). Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx_d), python3. Usage: bash tests/make_sd_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/sd
mkdir -p "$OUT"
# sdcase NAME SYSTEM(folder under tests/data) TEMPERATURES...: runs $OUT/NAME.mdp and writes step, total energy
# and the temperature columns gmx energy offers for the given names.
sdcase() {
  local name=$1 system=$2
  shift 2
  run "$name.grompp" "$GMXD" grompp -maxwarn 0 -f "$OUT/$name.mdp" -c "$TESTS/data/$system/conf.gro" \
    -p "$TESTS/data/$system/topol.top" -o "$name.tpr"
  run "$name.mdrun" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$name.tpr" -deffnm "$name"
  (cd "$WORK" && printf '%s\n' Total-Energy "$@" "" | "$GMXD" energy -f "$name.edr" -o "$name.xvg" > "$name.energy.log" 2>&1)
}
# The cut-offs of every case; the noiseless paths search every step, so that no pair list's buffer (halomd's
# atom-pair list against GROMACS's cluster list) parts them.
cutoffs='cutoff-scheme = Verlet
verlet-buffer-tolerance = -1
rlist = 1.1
rcoulomb = 1.0
rvdw = 1.0
vdw-modifier = Potential-shift
DispCorr = EnerPres'
common="$cutoffs
nstlist = 1
nstcalcenergy = 1
nstenergy = 1"

cat > "$OUT/water.mdp" << EOF2
; written by tests/make_sd_refdata.sh: spce_1k5 with friction only (ref-t 0)
integrator = sd
dt = 0.002
nsteps = 40
continuation = yes
coulombtype = Reaction-Field
epsilon-rf = 0
$common
tc-grps = System
tau-t = 0.5
ref-t = 0
EOF2
sdcase water spce_1k5 Temperature
{
  echo "# step total T (kJ/mol, K): gmx_d $version, water.mdp on spce_1k5; written by tests/make_sd_refdata.sh"
  awk '!/^[#@]/ { printf "%d %s %s\n", $1 / 0.002 + 0.5, $2, $3 }' "$WORK/water.xvg"
} > "$OUT/water.txt"

cat > "$OUT/peptide.mdp" << EOF2
; written by tests/make_sd_refdata.sh: the solvated peptide, h-bonds, two groups with friction only
integrator = sd
dt = 0.001
nsteps = 30
continuation = no
constraints = h-bonds
coulombtype = PME
$common
tc-grps = Protein Non-Protein
tau-t = 0.1 0.4
ref-t = 0 0
EOF2
sdcase peptide bonded/solvated T-Protein T-non-Protein
{
  echo "# step total T-Protein T-Non-Protein (kJ/mol, K): gmx_d $version, peptide.mdp on bonded/solvated;"
  echo "# written by tests/make_sd_refdata.sh"
  awk '!/^[#@]/ { printf "%d %s %s %s\n", $1 / 0.001 + 0.5, $2, $3, $4 }' "$WORK/peptide.xvg"
} > "$OUT/peptide.txt"

cat > "$OUT/hot.mdp" << EOF2
; written by tests/make_sd_refdata.sh: spce_1k5 at 300 K under SD, 20 ps
integrator = sd
dt = 0.002
nsteps = 10000
continuation = yes
coulombtype = Reaction-Field
epsilon-rf = 0
$cutoffs
nstlist = 10
nstcalcenergy = 10
nstenergy = 10
tc-grps = System
tau-t = 0.5
ref-t = 300
ld-seed = 17
EOF2
sdcase hot spce_1k5 Temperature
python3 - "$WORK/hot.xvg" "$version" > "$OUT/hot.txt" << 'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l[0] not in '#@']
t = [float(r[2]) for r in rows if float(r[0]) >= 5.0]
print(f"# gmx_d {sys.argv[2]}, hot.mdp on spce_1k5: the temperature from 5 ps on; written by tests/make_sd_refdata.sh")
print(f"t_mean {statistics.mean(t):.4f}")
print(f"t_std {statistics.stdev(t):.4f}")
PY
echo "make_sd_refdata.sh: wrote $OUT"
