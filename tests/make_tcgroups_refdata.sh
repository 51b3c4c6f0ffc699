#!/usr/bin/env bash
# Makes tests/data/tcgroups: two temperature-coupling groups (tc-grps = Protein Non-Protein) on the solvated
# peptide of tests/data/bonded (h-bonds constrained) by GROMACS 2022 (gmx_d). With ref-t = 0 0 the two
# v-rescale thermostats have no noise, so both codes follow one path (tau-t 0.1 and 0.2, coupling every step):
# reference.txt has per step the total and conserved energy and T-Protein, T-non-Protein over 20 steps;
# ndf.txt the degrees of freedom grompp gives each group. Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx, gmx_d), python3. Usage: bash tests/make_tcgroups_refdata.sh
set -euo pipefail
NEED_GMX=1
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/tcgroups
SYS=$TESTS/data/bonded/solvated
mkdir -p "$OUT"
grep -v -E '^(;|nsteps|tcoupl|tc-grps|tau-t|ref-t)' "$SYS/hbonds_step0.mdp" > "$OUT/two_groups.mdp"
printf 'nsteps = 20\ntcoupl = v-rescale\ntc-grps = Protein Non-Protein\ntau-t = 0.1 0.2\nref-t = 0 0\nnsttcouple = 1\n' \
  >> "$OUT/two_groups.mdp"
tc_case tg two_groups.mdp ndf.txt reference.txt T-Protein T-non-Protein ''

# The same two thermostats on groups of an index file (grompp -n): index.ndx from gmx make_ndx, First_half
# (atoms 1-60, part of the peptide) and Rest (the others); ndf_index.txt and reference_index.txt as above.
rm -f "$OUT/index.ndx"
(cd "$WORK" && printf 'a 1-60\nname 15 First_half\n! 15\nname 16 Rest\nq\n' |
  "$GMX" make_ndx -f "$SYS/conf.gro" -o "$OUT/index.ndx" > make_ndx.log 2>&1) || { tail -20 "$WORK/make_ndx.log"; exit 1; }
sed 's/^tc-grps = .*/tc-grps = First_half Rest/' "$OUT/two_groups.mdp" > "$OUT/index_groups.mdp"
tc_case ix index_groups.mdp ndf_index.txt reference_index.txt T-First_half T-Rest ', -n index.ndx' -n "$OUT/index.ndx"

# The centre-of-mass motion removed per group (comm-grps, every step): the two groups (ndf_comm.txt,
# reference_comm.txt), and the protein alone, the water keeping its motion as GROMACS's rest group
# (ndf_comm_rest.txt, reference_comm_rest.txt).
sed 's/^nsteps = 20$/nsteps = 20\ncomm-grps = Protein Non-Protein\nnstcomm = 1/' "$OUT/two_groups.mdp" > "$OUT/comm_groups.mdp"
tc_case cg comm_groups.mdp ndf_comm.txt reference_comm.txt T-Protein T-non-Protein ''
sed 's/^comm-grps = .*/comm-grps = Protein/' "$OUT/comm_groups.mdp" > "$OUT/comm_rest.mdp"
# grompp warns that the water is in no group (an error without -maxwarn).
MAXWARN=1 tc_case cr comm_rest.mdp ndf_comm_rest.txt reference_comm_rest.txt T-Protein T-non-Protein ''
