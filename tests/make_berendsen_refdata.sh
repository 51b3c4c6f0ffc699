#!/usr/bin/env bash
# Makes tests/data/berendsen: GROMACS 2022's (gmx_d) Berendsen thermostat and barostat. Both are deterministic
# (no noise), so halomd follows gmx_d's path step by step at any temperature. On spce_1k5 (its nve.mdp:
# continuation, reaction field, rlist 1.1, DispCorr EnerPres), reference.txt has per case and step the
# potential, conserved energy, temperature, pressure and, with pressure coupling, volume and box edges x and z:
#   nvt           tcoupl = berendsen, tau-t 0.1, ref-t 350 (the water heats), nsttcouple 5, 50 steps
#   anneal_single, anneal_periodic   the same thermostat every step with simulated annealing of its ref-t
#   npt_iso       and pcoupl = berendsen, isotropic, tau-p 0.5, ref-p 1, nstpcouple 1, 40 steps (ref-t 300)
#   npt_semi_pme  semi-isotropic (compressibility 4.5e-5 9e-5, ref-p 1 100), PME, nstpcouple 2, 40 steps
# and on the solvated peptide (tcgroups/two_groups.mdp with tcoupl = berendsen, ref-t 300 310, nsttcouple 1,
# 20 steps) reference_groups.txt per step the total and conserved energy and T-Protein, T-non-Protein, as
# tests/make_tcgroups_refdata.sh writes them. grompp warns about both couplings (-maxwarn 2).
# Every number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3. Usage:
# bash tests/make_berendsen_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/berendsen
SYS=$TESTS/data/spce_1k5
mkdir -p "$OUT"

# case mdp-options... on top of spce_1k5/nve.mdp
write_mdp() {
  local name=$1
  shift
  grep -v -E '^(;|nsteps|tcoupl|nstenergy|nstcalcenergy)' "$SYS/nve.mdp" > "$OUT/$name.mdp"
  # A search every step: at 300-350 K a pair can close in by more than rlist - rc (0.1 nm) between searches,
  # which GROMACS's cluster list holds and halomd's atom list does not (a 0.01 kJ/mol jump in the paths).
  printf 'tcoupl = berendsen\ntc-grps = System\ntau-t = 0.1\nnstcalcenergy = 1\nnstenergy = 1\n' >> "$OUT/$name.mdp"
  sed -i 's/^nstlist .*/nstlist = 1/' "$OUT/$name.mdp"
  set_mdp_options "$OUT/$name.mdp" "$@"
}
gmx_run() {  # TAG MDP CONF TOP
  run "$1.grompp" "$GMXD" grompp -maxwarn 2 -f "$2" -c "$3" -p "$4" -o "$1.tpr"
  run "$1.mdrun" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$1.tpr" -deffnm "$1"
}
write_mdp nvt nsteps=50 ref-t=350 nsttcouple=5
# Simulated annealing of the thermostat's reference: up from 300 to 400 K in 0.02 ps, then held; and
# periodically 300 -> 400 -> 300 K every 0.04 ps (2.5 periods in 50 steps).
write_mdp anneal_single nsteps=50 ref-t=300 nsttcouple=1 annealing=single annealing-npoints=2 \
  "annealing-time=0 0.02" "annealing-temp=300 400"
write_mdp anneal_periodic nsteps=50 ref-t=300 nsttcouple=1 annealing=periodic annealing-npoints=3 \
  "annealing-time=0 0.02 0.04" "annealing-temp=300 400 300"
write_mdp npt_iso nsteps=40 ref-t=300 nsttcouple=1 pcoupl=berendsen tau-p=0.5 compressibility=4.5e-5 ref-p=1 \
  nstpcouple=1
write_mdp npt_semi_pme nsteps=40 ref-t=300 nsttcouple=1 pcoupl=berendsen pcoupltype=semiisotropic tau-p=0.5 \
  "compressibility=4.5e-5 9e-5" "ref-p=1 100" nstpcouple=2 coulombtype=PME

{
  echo "# case step potential conserved temperature pressure volume box_x box_z (kJ/mol, K, bar, nm^3, nm):"
  echo "# gmx_d $version; written by tests/make_berendsen_refdata.sh"
} > "$WORK/reference.txt"
for name in nvt anneal_single anneal_periodic npt_iso npt_semi_pme; do
  gmx_run "$name" "$OUT/$name.mdp" "$SYS/conf.gro" "$SYS/topol.top"
  terms=(Potential "Conserved En." Temperature Pressure)
  [[ $name == npt* ]] && terms+=(Volume Box-X Box-Z)  # a constant box has no such terms: its rows end there
  run "$name.energy" sh -c "printf 'Potential\nConserved-En.\nTemperature\nPressure\nVolume\nBox-X\nBox-Z\n\n' |
    '$GMXD' energy -f $name.edr -o $name.xvg"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/$name.xvg" "${terms[@]}" | sed "s/^/$name /" \
    >> "$WORK/reference.txt"
done
mv "$WORK/reference.txt" "$OUT/reference.txt"

PEP=$TESTS/data/bonded/solvated
sed -e 's/^tcoupl = .*/tcoupl = berendsen/' -e 's/^ref-t = .*/ref-t = 300 310/' \
  "$TESTS/data/tcgroups/two_groups.mdp" > "$OUT/two_groups.mdp"
gmx_run groups "$OUT/two_groups.mdp" "$PEP/conf.gro" "$PEP/topol.top"
run groups.energy sh -c "printf 'Total-Energy\nConserved-En.\nT-Protein\nT-non-Protein\n\n' |
  '$GMXD' energy -f groups.edr -o groups.xvg"
{
  echo "# step total conserved T-Protein T-non-Protein (kJ/mol, K): gmx_d $version, two_groups.mdp;"
  echo "# written by tests/make_berendsen_refdata.sh"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/groups.xvg" "Total Energy" "Conserved En." T-Protein \
    T-non-Protein
} > "$OUT/reference_groups.txt"
head -3 "$OUT/reference.txt"
tail -2 "$OUT/reference_groups.txt"
