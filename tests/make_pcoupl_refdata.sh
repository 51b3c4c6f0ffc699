#!/usr/bin/env bash
# Makes tests/data/pcoupl: C-rescale pressure coupling by GROMACS 2022 (gmx_d) on spce_1k5.
# Step by step (reference.txt): with ref-t = 0 the v-rescale thermostat and C-rescale's noise vanish, so
# both codes follow one deterministic path; per case and step the potential, conserved energy, pressure,
# volume and box edges x and z:
#   iso_rf     isotropic, reaction field, nstpcouple 1, 20 steps
#   semi_pme   semi-isotropic (compressibility 4.5e-5 9e-5, ref-p 1 100), PME, nstpcouple 2, 20 steps
# Statistics (ensemble.txt): a 50 ps run at 300 K (v-rescale tau-t 0.1, C-rescale tau-p 1, nstpcouple 10,
# ld-seed 2026) gives the mean density and its standard deviation from 5 ps on (gmx energy's Density every
# 20 fs), what halomd's own run of the same settings must reproduce within the statistics.
# Every number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3. Usage:
# bash tests/make_pcoupl_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/pcoupl
SYS=$TESTS/data/spce_1k5
mkdir -p "$OUT"

# case mdp-options... on top of spce_1k5/nve.mdp (continuation, reaction field, rlist 1.1, DispCorr EnerPres)
write_mdp() {
  local name=$1
  shift
  grep -v -E '^(;|nsteps|tcoupl|nstenergy|nstcalcenergy)' "$SYS/nve.mdp" > "$OUT/$name.mdp"
  printf 'tcoupl = v-rescale\ntc-grps = System\ntau-t = 0.1\npcoupl = C-rescale\ntau-p = 1.0\n' >> "$OUT/$name.mdp"
  set_mdp_options "$OUT/$name.mdp" "$@"
}
run() {
  (cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$OUT/$1.mdp" -c "$SYS/conf.gro" -p "$SYS/topol.top" -o "$1.tpr" \
    > "$1.grompp.log" 2>&1 && "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$1.tpr" -deffnm "$1" > "$1.mdrun.log" 2>&1) ||
    { tail -20 "$WORK/$1.grompp.log" "$WORK/$1.mdrun.log"; exit 1; }
}
write_mdp iso_rf nsteps=20 ref-t=0 compressibility=4.5e-5 ref-p=1 nstpcouple=1 nstcalcenergy=1 nstenergy=1
write_mdp semi_pme nsteps=20 ref-t=0 pcoupltype=semiisotropic "compressibility=4.5e-5 9e-5" "ref-p=1 100" \
  nstpcouple=2 coulombtype=PME nstcalcenergy=1 nstenergy=1
write_mdp ensemble nsteps=25000 ref-t=300 compressibility=4.5e-5 ref-p=1 nstpcouple=10 nstcalcenergy=10 \
  nstenergy=10 ld-seed=2026

{
  echo "# case step potential conserved pressure volume box_x box_z (kJ/mol, bar, nm^3, nm): gmx_d $version,"
  echo "# ref-t = 0 (deterministic); written by tests/make_pcoupl_refdata.sh"
} > "$WORK/reference.txt"
for name in iso_rf semi_pme; do
  run "$name"
  (cd "$WORK" && printf 'Potential\nConserved-En.\nPressure\nVolume\nBox-X\nBox-Z\n\n' |
    "$GMXD" energy -f "$name.edr" -o "$name.xvg" > "$name.energy.log" 2>&1)
  python3 - "$WORK/$name.xvg" "$name" >> "$WORK/reference.txt" << 'PY'
import re, sys
legend, rows = {}, []
for line in open(sys.argv[1]):
    m = re.match(r'@ s(\d+) legend "(.*)"', line)
    if m:
        legend[m.group(2)] = int(m.group(1)) + 1
    elif line.strip() and line[0] not in '#@':
        rows.append(line.split())
for step, r in enumerate(rows):
    print(sys.argv[2], step, *(r[legend[t]] for t in ["Potential", "Conserved En.", "Pressure", "Volume", "Box-X", "Box-Z"]))
PY
done
run ensemble
(cd "$WORK" && printf 'Density\n\n' | "$GMXD" energy -f ensemble.edr -o ensemble.xvg > ensemble.energy.log 2>&1)
python3 - "$WORK/ensemble.xvg" "$version" > "$OUT/ensemble.txt" << 'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l[0] not in '#@']
d = [float(r[1]) for r in rows if float(r[0]) >= 5.0]
print(f"# 50 ps of C-rescale (ensemble.mdp), gmx_d {sys.argv[2]}: density from 5 ps on (kg/m^3), every 20 fs;")
print("# written by tests/make_pcoupl_refdata.sh")
print(f"density_mean {statistics.mean(d):.4f}")
print(f"density_sd {statistics.pstdev(d):.4f}")
PY
mv "$WORK/reference.txt" "$OUT/reference.txt"
cat "$OUT/ensemble.txt"
