#!/usr/bin/env bash
# Makes tests/data/freeze: frozen atoms (freezegrps, freezedim) on the solvated peptide of tests/data/bonded by
# GROMACS 2022 (gmx_d), on top of tcgroups/two_groups.mdp (two noiseless v-rescale thermostats, ref-t 0 0,
# Protein and non-Protein; 20 steps) with the centre-of-mass motion removed every step:
#   full.mdp     the whole peptide frozen (Y Y Y): its group has no degrees of freedom, and grompp takes its
#                atoms out of the centre-of-mass group (a note)
#   index.mdp    First_half of tcgroups/index.ndx (atoms 1-60) frozen: h-bond constraints between frozen and
#                free atoms, and a tc group of frozen and free atoms (grompp -n)
#   partial.mdp  the peptide frozen along z only (N N Y), no constraints, the water alone in comm-grps (grompp
#                warns that the peptide is in no such group: -maxwarn 1)
# For each, ndf_CASE.txt has grompp's degrees of freedom per group and reference_CASE.txt per step the total
# and conserved energy and T-Protein, T-non-Protein (as tests/make_tcgroups_refdata.sh writes them). Every
# number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3. Usage:
# bash tests/make_freeze_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/freeze
SYS=$TESTS/data/bonded/solvated
mkdir -p "$OUT"
base() {  # NAME KEY=VALUE...: two_groups.mdp with nstcomm 1 and the given options
  local name=$1
  shift
  sed 's/^nsteps = 20$/nsteps = 20\nnstcomm = 1/' "$TESTS/data/tcgroups/two_groups.mdp" > "$OUT/$name.mdp"
  set_mdp_options "$OUT/$name.mdp" "$@"
}
base full freezegrps=Protein "freezedim=Y Y Y"
tc_case full full.mdp ndf_full.txt reference_full.txt T-Protein T-non-Protein ''
base index freezegrps=First_half "freezedim=Y Y Y"
tc_case index index.mdp ndf_index.txt reference_index.txt T-Protein T-non-Protein ', -n index.ndx' \
  -n "$TESTS/data/tcgroups/index.ndx"
base partial freezegrps=Protein "freezedim=N N Y" constraints=none comm-grps=non-Protein
MAXWARN=1 tc_case partial partial.mdp ndf_partial.txt reference_partial.txt T-Protein T-non-Protein ''
