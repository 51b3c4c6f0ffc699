#!/usr/bin/env bash
# Makes tests/data/bonded: a 9-residue peptide (SER ALA PHE LYS GLU VAL THR ASN GLY, heavy atoms built by
# tests/refdata/peptide_pdb.py) through gmx pdb2gmx in four force fields whose listed interactions differ:
#   amber99sb-ildn  bonds 1, angles 1, dihedrals 9 (lookup and ILDN macros), periodic impropers 4, gen-pairs
#   charmm27        bonds 1, Urey-Bradley angles 5, dihedrals 9, harmonic impropers 2, [ pairtypes ] (no CMAP)
#   oplsaa          bonds 1, angles 1, Ryckaert-Bellemans 3, impropers as dihedrals 1, gen-pairs fudgeLJ 0.5
#   gromos54a7      G96 bonds 2 and angles 2, dihedrals 1 and impropers 2 from macros, pairs from [ pairtypes ]
# Each is relaxed by 200 steps of steepest descent in a 5 nm box (gmx_d) and kept as <ff>/conf.gro and
# <ff>/topol.top (which include the force field from GROMACS's share folder). For each, gmx_d's step-0
# energy terms (reaction field, step0.mdp) go to reference.txt and its forces to <ff>/forces.txt.
# Then the amber99sb-ildn peptide solvated in TIP3P water (solvated/), relaxed, given 300 K velocities by 200
# steps of v-rescale: its step-0 energies with PME (solvated/step0.mdp) in reference.txt, and a 400-step NVE
# run (solvated/nve.mdp, dt 0.5 fs, no constraints) as the mean total energy and its drift in
# solvated/nve_reference.txt. Every number is read from GROMACS output.
# Needs GROMACS 2022 (gmx, gmx_d), python3 with numpy. Usage: bash tests/make_bonded_refdata.sh
set -euo pipefail
NEED_GMX=1
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUT=$TESTS/data/bonded
mkdir -p "$OUT"

# Overrides common.sh's run: on failure this one shows the log's warnings and errors, not its tail.
run() {  # run NAME COMMAND...: runs in $WORK, shows the log's warnings and errors on failure
  local name=$1
  shift
  (cd "$WORK" && "$@" > "$name.log" 2>&1) || {
    echo "make_bonded_refdata.sh: $name failed:" >&2
    grep -A12 "^WARNING\|^ERROR\|Fatal" "$WORK/$name.log" >&2
    exit 1
  }
}
mdp() {  # mdp FILE KEY=VALUE...: an .mdp from the given options, one per line
  local f=$1
  shift
  printf '; written by tests/make_bonded_refdata.sh\n' > "$f"
  for kv in "$@"; do echo "${kv%%=*} = ${kv#*=}" >> "$f"; done
}
# Every energy term of an .edr at its first frame, as "name value" lines (names with '_' for spaces).
terms() {
  (cd "$WORK" && seq 1 30 | "$GMXD" energy -f "$1.edr" -o "$1.xvg" > "$1.energy.log" 2>&1)
  python3 - "$WORK/$1.xvg" << 'PY'
import re, sys
legends, row = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'@ s(\d+) legend "(.*)"', line)
    if m:
        legends[m.group(2)] = int(m.group(1)) + 1
    elif line.strip() and line[0] not in '#@' and row is None:
        row = line.split()
for name, col in legends.items():
    print(name.replace(' ', '_'), row[col])
PY
}

# nve_reference NAME OUT TITLE: the mean total energy of $WORK/NAME.edr and its drift from step 10 on.
nve_reference() {
  (cd "$WORK" && printf 'Total-Energy\n\n' | "$GMXD" energy -f "$1.edr" -o "$1_total.xvg" > "$1.energy.log" 2>&1)
  python3 - "$WORK/$1_total.xvg" "$version" "$3" > "$2" << 'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l[0] not in '#@']
t = [float(r[0]) for r in rows]
e = [float(r[1]) for r in rows]
tt, ee = t[10:], e[10:]
mt, me = sum(tt) / len(tt), sum(ee) / len(ee)
slope = sum((a - mt) * (b - me) for a, b in zip(tt, ee)) / sum((a - mt) ** 2 for a in tt)
print(f"# {sys.argv[3]}, gmx_d {sys.argv[2]};")
print("# written by tests/make_bonded_refdata.sh from gmx energy's Total-Energy")
print(f"nve_steps {len(rows) - 1}")
print(f"nve_total_mean {sum(e) / len(e):.10g}")
print(f"nve_total_drift_per_ps_from_step10 {slope:.10g}")
PY
}

common="cutoff-scheme=Verlet nstlist=10 rcoulomb=1.0 rvdw=1.0 vdw-modifier=Potential-shift DispCorr=EnerPres"
# shellcheck disable=SC2086
mdp "$WORK/em.mdp" integrator=steep nsteps=200 emtol=100 coulombtype=Reaction-Field epsilon-rf=0 $common
# shellcheck disable=SC2086
mdp "$OUT/step0.mdp" integrator=md dt=0.0005 nsteps=0 coulombtype=Reaction-Field epsilon-rf=0 $common \
  verlet-buffer-tolerance=-1 rlist=1.1 tcoupl=no constraints=none nstcalcenergy=1 nstenergy=1 nstfout=1

python3 "$TESTS/refdata/peptide_pdb.py" "$WORK/peptide.pdb"
ref=$WORK/reference.txt
{
  echo "# case term value (kJ/mol, bar; step 0, GROMACS's term names with '_' for spaces)"
  echo "# gmx_d $version; written by tests/make_bonded_refdata.sh"
} > "$ref"
for spec in "amber99sb-ildn tip3p" "charmm27 tip3p -nocmap" "oplsaa tip3p" "gromos54a7 spc"; do
  read -r ff water extra <<< "$spec"
  mkdir -p "$OUT/$ff"
  # grompp's one warning for GROMOS: parametrised with a twin-range cut-off (GROMACS issue 2884).
  maxwarn=$([ "$ff" = gromos54a7 ] && echo 1 || echo 0)
  # shellcheck disable=SC2086
  run "$ff.pdb2gmx" "$GMX" pdb2gmx -f peptide.pdb -o "$ff.pdb.gro" -p "$ff.top" -i "${ff}_posre.itp" -ff "$ff" \
    -water "$water" -ignh $extra
  # pdb2gmx's header (user, host, date) is replaced by one line; the position restraints stay off (POSRES).
  { echo "; $ff topology of the test peptide by gmx pdb2gmx${extra:+ $extra} (tests/make_bonded_refdata.sh)"
    awk 'body || !/^;/ { body = 1; print }' "$WORK/$ff.top" | sed "s|${ff}_posre.itp|posre.itp|"; } > "$OUT/$ff/topol.top"
  run "$ff.box" "$GMX" editconf -f "$ff.pdb.gro" -o "$ff.box.gro" -box 5 5 5 -c
  run "$ff.em.grompp" "$GMXD" grompp -maxwarn "$maxwarn" -f em.mdp -c "$ff.box.gro" -p "$OUT/$ff/topol.top" -o "$ff.em.tpr"
  run "$ff.em" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$ff.em.tpr" -deffnm "$ff.em"
  cp "$WORK/$ff.em.gro" "$OUT/$ff/conf.gro"
  run "$ff.grompp" "$GMXD" grompp -maxwarn "$maxwarn" -f "$OUT/step0.mdp" -c "$OUT/$ff/conf.gro" -p "$OUT/$ff/topol.top" \
    -o "$ff.tpr"
  run "$ff.mdrun" "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s "$ff.tpr" -deffnm "$ff"
  terms "$ff" | sed "s/^/$ff /" >> "$ref"
  # The step-0 forces (kJ/mol/nm), one atom per line, from gmx dump of the .trr.
  "$GMXD" dump -f "$WORK/$ff.trr" 2> /dev/null |
    sed -n 's/^ *f\[ *[0-9]*\]={\(.*\)}/\1/p' | tr -d ',' > "$OUT/$ff/forces.txt"
  [ "$(wc -l < "$OUT/$ff/forces.txt")" = "$(sed -n 2p "$OUT/$ff/conf.gro" | tr -d ' ')" ] ||
    { echo "make_bonded_refdata.sh: $ff: forces not read from the .trr" >&2; exit 1; }
done

# The solvated peptide with PME: amber99sb-ildn's peptide (relaxed above) in a 4.2 nm box of TIP3P.
S=$OUT/solvated
mkdir -p "$S"
cp "$OUT/amber99sb-ildn/topol.top" "$WORK/solv.top"
run solvate "$GMX" solvate -cp "$OUT/amber99sb-ildn/conf.gro" -cs spc216.gro -box 4.2 4.2 4.2 -p solv.top \
  -o solv0.gro
sed -e "1s|^; amber99sb-ildn topology|; amber99sb-ildn topology, solvated by gmx solvate,|" "$WORK/solv.top" > "$S/topol.top"
pme="coulombtype=PME $common"
# shellcheck disable=SC2086
mdp "$WORK/solv_em.mdp" integrator=steep nsteps=300 emtol=100 $pme
run solv.em.grompp "$GMXD" grompp -maxwarn 0 -f solv_em.mdp -c solv0.gro -p "$S/topol.top" -o solv_em.tpr
run solv.em "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s solv_em.tpr -deffnm solv_em
# shellcheck disable=SC2086
mdp "$WORK/warm.mdp" integrator=md dt=0.0005 nsteps=200 $pme verlet-buffer-tolerance=0.005 tcoupl=v-rescale \
  tc-grps=System tau-t=0.1 ref-t=300 gen-vel=yes gen-temp=300 gen-seed=2026 constraints=none nstenergy=100
run warm.grompp "$GMXD" grompp -maxwarn 0 -f warm.mdp -c solv_em.gro -p "$S/topol.top" -o warm.tpr
run warm "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s warm.tpr -deffnm warm
cp "$WORK/warm.gro" "$S/conf.gro"
# shellcheck disable=SC2086
mdp "$S/step0.mdp" integrator=md dt=0.0005 nsteps=0 $pme verlet-buffer-tolerance=-1 rlist=1.1 tcoupl=no \
  continuation=no constraints=none nstcalcenergy=1 nstenergy=1
run solv.grompp "$GMXD" grompp -maxwarn 0 -f "$S/step0.mdp" -c "$S/conf.gro" -p "$S/topol.top" -o solv.tpr
run solv.mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s solv.tpr -deffnm solv
terms solv | sed "s/^/solvated /" >> "$ref"
# shellcheck disable=SC2086
mdp "$S/nve.mdp" integrator=md dt=0.0005 nsteps=400 $pme verlet-buffer-tolerance=0.005 tcoupl=no \
  continuation=no constraints=none nstcalcenergy=1 nstenergy=1 comm-mode=Linear nstcomm=100
run nve.grompp "$GMXD" grompp -maxwarn 0 -f "$S/nve.mdp" -c "$S/conf.gro" -p "$S/topol.top" -o nve.tpr
run nve.mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s nve.tpr -deffnm nve
nve_reference "nve" "$S/nve_reference.txt" "400-step NVE run of the solvated peptide (solvated/nve.mdp)"

# LINCS: the solvated peptide with constraints = h-bonds (step 0 with PME, and a 500-step NVE run at dt 2 fs
# with the Verlet buffer estimate, whose rlist grompp prints), and the amber99sb-ildn peptide in vacuum with
# all-bonds (step 0, reaction field).
sed -e 's/^constraints = none/constraints = h-bonds/' "$S/step0.mdp" > "$S/hbonds_step0.mdp"
run hb0.grompp "$GMXD" grompp -maxwarn 0 -f "$S/hbonds_step0.mdp" -c "$S/conf.gro" -p "$S/topol.top" -o hb0.tpr
run hb0.mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s hb0.tpr -deffnm hb0
terms hb0 | sed "s/^/solvated_hbonds /" >> "$ref"
sed -e 's/^constraints = none/constraints = h-bonds/' -e 's/^dt = .*/dt = 0.002/' -e 's/^nsteps = .*/nsteps = 500/' \
  "$S/nve.mdp" > "$S/hbonds_nve.mdp"
run hbnve.grompp "$GMXD" grompp -maxwarn 0 -f "$S/hbonds_nve.mdp" -c "$S/conf.gro" -p "$S/topol.top" -o hbnve.tpr
run hbnve.mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s hbnve.tpr -deffnm hbnve
rlist=$(sed -n 's/^Calculated rlist for 1x1 atom pair-list as \([0-9.]*\) nm.*/\1/p' "$WORK/hbnve.grompp.log")
[ -n "$rlist" ] || { echo "make_bonded_refdata.sh: no rlist in the h-bonds grompp log" >&2; exit 1; }
echo "solvated_hbonds_nve rlist_1x1 $rlist" >> "$ref"
sed -e 's/^constraints = none/constraints = all-bonds/' "$OUT/step0.mdp" > "$OUT/allbonds_step0.mdp"
run ab.grompp "$GMXD" grompp -maxwarn 0 -f "$OUT/allbonds_step0.mdp" -c "$OUT/amber99sb-ildn/conf.gro" \
  -p "$OUT/amber99sb-ildn/topol.top" -o ab.tpr
run ab.mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -reprod -s ab.tpr -deffnm ab
terms ab | sed "s/^/amber99sb-ildn_allbonds /" >> "$ref"
nve_reference hbnve "$S/hbonds_nve_reference.txt" "500-step NVE run of the solvated peptide with h-bonds (solvated/hbonds_nve.mdp)"
mv "$ref" "$OUT/reference.txt"
cat "$OUT/reference.txt" "$S/nve_reference.txt"
