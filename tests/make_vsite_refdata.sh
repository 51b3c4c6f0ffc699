#!/usr/bin/env bash
# Makes tests/data/vsite: water models with virtual sites, from GROMACS's oplsaa.ff: TIP4P (tip4p/: the
# charge on a vsite3, [ virtual_sites3 ] funct 1) and TIP5P (tip5p/: two lone pairs on vsite3out, funct 4),
# each a 3 nm box from gmx solvate (tip4p.gro, tip5p.gro), relaxed by steepest descent and 5 ps of 300 K
# V-rescale NVT (gmx_d). For each, gmx_d's step-0 energy terms with PME and GROMACS's Verlet buffer
# (step0.mdp, case <model>) and with reaction field (step0_rf.mdp, case <model>_rf), and the 1x1 rlist go to
# <model>/reference.txt, and a 100-step NVE run of 2 fs with reaction field and a search every step
# (nve.mdp) gives the total energy and pressure every 10 steps (<model>/nve.txt). Each starts with continuation = no: SETTLE, then the virtual
# sites from the waters, as mdrun does (with continuation = yes GROMACS 2022's first step takes the .gro's
# sites for the pair forces but constructed ones for PME). Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx, gmx_d), python3. Usage: bash tests/make_vsite_refdata.sh
set -euo pipefail
NEED_GMX=1
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/vsite
mdp() {  # mdp FILE KEY=VALUE...: an .mdp from the given options, one per line
  local f=$1
  shift
  printf '; written by tests/make_vsite_refdata.sh\n' > "$f"
  for kv in "$@"; do echo "${kv%%=*} = ${kv#*=}" >> "$f"; done
}
common="cutoff-scheme=Verlet nstlist=10 coulombtype=PME rcoulomb=1.0 rvdw=1.0 vdw-modifier=Potential-shift"
common="$common DispCorr=EnerPres"
# shellcheck disable=SC2086
mdp "$WORK/em.mdp" integrator=steep nsteps=200 emtol=100 $common
# shellcheck disable=SC2086
mdp "$WORK/nvt.mdp" integrator=md dt=0.002 nsteps=2500 $common tcoupl=v-rescale tc-grps=System tau-t=0.1 \
  ref-t=300 gen-vel=yes gen-temp=300 gen-seed=2026 nstenergy=500

for model in tip4p tip5p; do
  D=$OUT/$model
  mkdir -p "$D"
  printf '; %s water from oplsaa.ff (tests/make_vsite_refdata.sh)\n#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/%s.itp"\n\n[ system ]\n%s water\n\n[ molecules ]\n' \
    "$model" "$model" "$model" > "$WORK/$model.top"
  run "$model.solvate" "$GMX" solvate -cs "$model.gro" -box 3 3 3 -p "$model.top" -o "$model.0.gro"
  cp "$WORK/$model.top" "$D/topol.top"
  run "$model.em.grompp" "$GMXD" grompp -maxwarn 0 -f em.mdp -c "$model.0.gro" -p "$D/topol.top" -o "$model.em.tpr"
  run "$model.em" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$model.em.tpr" -deffnm "$model.em"
  run "$model.nvt.grompp" "$GMXD" grompp -maxwarn 0 -f nvt.mdp -c "$model.em.gro" -p "$D/topol.top" -o "$model.nvt.tpr"
  run "$model.nvt" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$model.nvt.tpr" -deffnm "$model.nvt"
  cp "$WORK/$model.nvt.gro" "$D/conf.gro"
  # shellcheck disable=SC2086
  mdp "$D/step0.mdp" integrator=md dt=0.002 nsteps=0 $common verlet-buffer-tolerance=0.005 tcoupl=no \
    continuation=no nstcalcenergy=1 nstenergy=1
  # shellcheck disable=SC2086
  sed -e 's/^coulombtype = PME/coulombtype = Reaction-Field\nepsilon-rf = 0/' "$D/step0.mdp" > "$D/step0_rf.mdp"
  # The NVE path with reaction field and a search every step: then no pair list's buffer (halomd's atom-pair
  # list against GROMACS's cluster list) parts the two runs.
  sed -e 's/^nsteps = 0/nsteps = 100/' -e 's/^nstlist = 10/nstlist = 1/' -e 's/^nstcalcenergy = 1/nstcalcenergy = 10/' \
    -e 's/^nstenergy = 1/nstenergy = 10/' "$D/step0_rf.mdp" > "$D/nve.mdp"
  ref=$D/reference.txt
  {
    echo "# case term value (kJ/mol, bar; step 0 of step0.mdp, GROMACS's term names with '_' for spaces)"
    echo "# gmx_d $version; written by tests/make_vsite_refdata.sh"
  } > "$ref"
  run "$model.step0.grompp" "$GMXD" grompp -maxwarn 0 -f "$D/step0.mdp" -c "$D/conf.gro" -p "$D/topol.top" -o "$model.step0.tpr"
  rlist=$(sed -n 's/^Calculated rlist for 1x1 atom pair-list as \([0-9.]*\) nm.*/\1/p' "$WORK/$model.step0.grompp.log")
  [ -n "$rlist" ] || { echo "make_vsite_refdata.sh: no 1x1 rlist in grompp's output" >&2; exit 1; }
  echo "$model rlist_1x1 $rlist" >> "$ref"
  run "$model.step0" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$model.step0.tpr" -deffnm "$model.step0"
  run "$model.rf.grompp" "$GMXD" grompp -maxwarn 0 -f "$D/step0_rf.mdp" -c "$D/conf.gro" -p "$D/topol.top" -o "$model.rf.tpr"
  run "$model.rf" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$model.rf.tpr" -deffnm "$model.rf"
  for c in step0 rf; do
    (cd "$WORK" && seq 1 30 | "$GMXD" energy -f "$model.$c.edr" -o "$model.$c.xvg" > "$model.$c.energy.log" 2>&1)
    python3 "$TESTS/refdata/refdata.py" first-frame "$WORK/$model.$c.xvg" "$model$([ $c = rf ] && echo _rf)" >> "$ref"
  done
  run "$model.nve.grompp" "$GMXD" grompp -maxwarn 0 -f "$D/nve.mdp" -c "$D/conf.gro" -p "$D/topol.top" -o "$model.nve.tpr"
  run "$model.nve" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$model.nve.tpr" -deffnm "$model.nve"
  (cd "$WORK" && printf 'Total-Energy\nPressure\n\n' | "$GMXD" energy -f "$model.nve.edr" -o "$model.nve.xvg" \
    > "$model.nve.energy.log" 2>&1)
  {
    echo "# step total pressure (kJ/mol, bar): gmx_d $version, nve.mdp; written by tests/make_vsite_refdata.sh"
    awk '!/^[#@]/ && NF >= 3 { printf "%d %s %s\n", $1 / 0.002 + 0.5, $2, $3 }' "$WORK/$model.nve.xvg"
  } > "$D/nve.txt"
done
echo "make_vsite_refdata.sh: wrote $OUT"
