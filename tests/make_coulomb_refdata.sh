#!/usr/bin/env bash
# Makes tests/data/coulomb/reference.txt: step-0 Coulomb (SR) and LJ (SR) energies of the spce_1k5 water box
# (tests/data/spce_1k5, its nve.mdp with the options below) from GROMACS 2022 (gmx_d, double precision), for
# the Coulomb settings whose constants depend on more than reaction field with epsilon-r = 1: plain cut-off
# with and without coulomb-modifier = Potential-shift, and epsilon-r != 1. test_coulomb_settings.cpp runs
# halomd with the same options and compares. Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx_d). Usage: bash tests/make_coulomb_refdata.sh   (GMX_D overrides the binary)
set -euo pipefail
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SYS=$TESTS/data/spce_1k5
GMXD=${GMX_D:-gmx_d}
command -v "$GMXD" > /dev/null || { echo "make_coulomb_refdata.sh: $GMXD not found" >&2; exit 1; }
version=$("$GMXD" --version 2> /dev/null | sed -n 's/^GROMACS version: *//p')
[[ $version == 2022* ]] || { echo "make_coulomb_refdata.sh: needs GROMACS 2022, $GMXD is $version" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/halomd_coulomb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# case coulombtype coulomb-modifier epsilon-r epsilon-rf
cases=(
  "cutoff_shift Cut-off Potential-shift 1 0"
  "cutoff_none Cut-off None 1 0"
  "cutoff_shift_epsr2 Cut-off Potential-shift 2 0"
  "cutoff_none_epsr2 Cut-off None 2 0"
  "rf78_epsr2 Reaction-Field Potential-shift 2 78"
  "rf_inf_epsr3 Reaction-Field None 3 0"
)
{
  echo "# case coulombtype coulomb-modifier epsilon-r epsilon-rf lj_sr coulomb_sr (kJ/mol, step 0 of spce_1k5)"
  echo "# gmx_d $version; written by tests/make_coulomb_refdata.sh"
} > "$WORK/reference.txt"
for c in "${cases[@]}"; do
  read -r name ctype cmod epsr epsrf <<< "$c"
  grep -v -E '^(;|nsteps|coulombtype|epsilon-rf)' "$SYS/nve.mdp" > "$WORK/$name.mdp"
  printf 'nsteps = 0\ncoulombtype = %s\ncoulomb-modifier = %s\nepsilon-r = %s\nepsilon-rf = %s\n' \
    "$ctype" "$cmod" "$epsr" "$epsrf" >> "$WORK/$name.mdp"
  (cd "$WORK" && "$GMXD" grompp -maxwarn 0 -f "$name.mdp" -c "$SYS/conf.gro" -p "$SYS/topol.top" -o "$name.tpr" \
    -po "$name.out.mdp" > "$name.grompp.log" 2>&1) || { tail -20 "$WORK/$name.grompp.log"; exit 1; }
  (cd "$WORK" && "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$name.tpr" -deffnm "$name" > "$name.mdrun.log" 2>&1)
  energies=$(cd "$WORK" && printf 'Coulomb-(SR)\nLJ-(SR)\n' | "$GMXD" energy -f "$name.edr" -o "$name.xvg" > /dev/null 2>&1;
    grep -v '^[#@]' "$WORK/$name.xvg" | head -1 | awk '{printf "%s %s", $2, $3}')  # terms in file order: LJ, Coulomb
  [ -n "$energies" ] || { echo "no energies for $name" >&2; exit 1; }
  echo "$name $ctype $cmod $epsr $epsrf $energies" >> "$WORK/reference.txt"
  echo "$name: $energies"
done
mkdir -p "$TESTS/data/coulomb"
mv "$WORK/reference.txt" "$TESTS/data/coulomb/reference.txt"
