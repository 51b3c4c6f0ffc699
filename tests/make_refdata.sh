#!/usr/bin/env bash
# Makes the GROMACS reference data of halomd's regression tests and the water example:
#   tests/data/spce_1k5, tests/data/spce_9k   SPC/E water (OPLS-AA files), ~1.5k and ~9k atoms
#   tests/data/lj_fluid                      argon-like Lennard-Jones liquid, ~1.5k atoms
#   examples/water                           the 1.5k box with the benchmark run.mdp
# Every number in the reference.txt files is read from GROMACS output (gmx_d, double precision).
# Needs GROMACS 2022 (gmx, gmx_d) and python3. Usage: bash tests/make_refdata.sh   (from any folder)
# Environment: NT (threads, default 2), KEEP_WORK=1 keeps the temporary folder, GMX / GMX_D override the binaries.
set -euo pipefail

TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$TESTS")
DATA=$TESTS/data
EXAMPLE=$ROOT/examples/water
HELPER=$TESTS/refdata/refdata.py
GMX=${GMX:-gmx}      # tools only (solvate, insert-molecules)
GMXD=${GMX_D:-gmx_d} # grompp, mdrun, energy: everything that makes a number
NT=${NT:-2}
MDRUN_OPTS=(-ntmpi 1 -ntomp "$NT" -pin off -reprod)

for exe in "$GMX" "$GMXD" python3; do
  command -v "$exe" > /dev/null || { echo "make_refdata.sh: $exe not found" >&2; exit 1; }
done
GMX_VERSION=$("$GMXD" --version 2> /dev/null | sed -n 's/^GROMACS version: *//p')
GMX_PRECISION=$("$GMXD" --version 2> /dev/null | sed -n 's/^Precision: *//p')
[[ $GMX_PRECISION == double ]] || { echo "make_refdata.sh: $GMXD is not double precision" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/halomd_refdata.XXXXXX")
if [[ -n ${KEEP_WORK:-} ]]; then
  echo "work folder (kept): $WORK"
else
  trap 'rm -rf "$WORK"' EXIT
fi
NOTES=$WORK/grompp_notes.txt
: > "$NOTES"
START=$SECONDS

# ---------------------------------------------------------------------------------------------- helpers
say() { printf '[%4ds] %s\n' $((SECONDS - START)) "$*"; }

# run LOG CMD...: runs CMD in the current folder with its output in LOG; records CMD in ./commands.txt.
run() {
  local log=$1
  shift
  echo "$*" >> commands.txt
  if ! "$@" > "$log" 2>&1; then
    echo "make_refdata.sh: FAILED in $PWD: $*" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}

# grompp LOG ARGS...: gmx_d grompp with warnings as errors; its NOTEs are collected for the final summary.
grompp() {
  local log=$1
  shift
  run "$log" "$GMXD" grompp -maxwarn 0 "$@"
  awk -v where="$(basename "$PWD")/$log" '
    /^(NOTE|WARNING) [0-9]+ / { p = 1; print "[" where "] " $0; next }
    p && /^$/ { p = 0; next }
    p { print "    " $0 }' "$log" >> "$NOTES"
}

mdrun() {
  local log=$1
  shift
  run "$log" "$GMXD" mdrun "${MDRUN_OPTS[@]}" "$@"
}

# energy EDR XVG TERM...: the named terms (those present) into XVG, through gmx_d energy.
energy() {
  local edr=$1 xvg=$2
  shift 2
  local t terms=""
  for t in "$@"; do terms+="'$t' "; done
  echo "$GMXD energy -f $edr -o $xvg   (terms: ${terms% })" >> commands.txt
  python3 "$HELPER" energy "$GMXD" "$edr" "$xvg" "$@"
}

# The nonbonded settings shared by every water .mdp (reaction field, shifted LJ, dispersion correction).
water_nonbonded() {
  cat << 'EOF'
cutoff-scheme            = Verlet
nstlist                  = 10
verlet-buffer-tolerance  = -1
rlist                    = 1.1
coulombtype              = Reaction-Field
epsilon-rf               = 0
rcoulomb                 = 1.0
vdw-modifier             = Potential-shift
rvdw                     = 1.0
DispCorr                 = EnerPres
pbc                      = xyz
EOF
}

# nve.mdp of the water tests (the spec of the NVE and step-0 references)
write_nve_mdp() {
  cat << 'EOF'
; NVE reference run of halomd's tests (written by tests/make_refdata.sh)
integrator               = md
dt                       = 0.002
nsteps                   = 500
continuation             = yes
EOF
  water_nonbonded
  cat << 'EOF'
tcoupl                   = no
comm-mode                = Linear
nstcomm                  = 100
nstcalcenergy            = 1
nstenergy                = 1
nstxout-compressed       = 0
EOF
}

# header FILE TITLE: the comment block of a reference.txt (version, then the commands of ./commands.txt)
header() {
  local out=$1 title=$2
  {
    echo "$title"
    echo "Made by \`bash tests/make_refdata.sh\`; every value below is read from GROMACS output, none is typed in."
    echo "GROMACS version:    $GMX_VERSION ($GMX_PRECISION precision, $GMXD)"
    echo "Commands (in a temporary folder; topol.top, conf.gro and the .mdp files are those of this folder):"
    sed 's/^/  /' commands.txt
  } > "$out"
}

# install SRC_DIR DEST_DIR FILE...: replaces DEST_DIR by the listed files of SRC_DIR
install_files() {
  local src=$1 dest=$2
  shift 2
  rm -rf "$dest"
  mkdir -p "$dest"
  local f
  for f in "$@"; do cp "$src/$f" "$dest/$f"; done
}

# ---------------------------------------------------------------------------------------------- SPC/E water
# make_water NAME BOX_NM NVT_STEPS: solvate -> steepest descent -> V-rescale NVT at 300 K -> references
make_water() {
  local name=$1 box=$2 nvt_steps=$3
  local w=$WORK/$name
  mkdir -p "$w"
  cd "$w"
  say "$name: solvate ${box} nm box, minimise, ${nvt_steps}-step NVT at 300 K"
  run solvate.log "$GMX" solvate -cs spc216.gro -box "$box" "$box" "$box" -o solvated.gro
  local natoms nmol
  natoms=$(sed -n 2p solvated.gro | tr -d ' ')
  nmol=$((natoms / 3))
  cat > full.top << EOF
; SPC/E water with the OPLS-AA force-field files of GROMACS
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"

[ system ]
SPC/E water

[ molecules ]
SOL $nmol
EOF
  cat > em.mdp << 'EOF'
integrator               = steep
nsteps                   = 2000
emtol                    = 100
emstep                   = 0.01
EOF
  water_nonbonded >> em.mdp
  # -pp: the preprocessed topology, from which the self-contained topol.top is made
  grompp grompp_em.log -f em.mdp -c solvated.gro -p full.top -pp full_pp.top -o em.tpr
  mdrun em.log -s em.tpr -deffnm em
  cat > nvt.mdp << EOF
integrator               = md
dt                       = 0.002
nsteps                   = $nvt_steps
continuation             = no
gen-vel                  = yes
gen-temp                 = 300
gen-seed                 = 1729
EOF
  water_nonbonded >> nvt.mdp
  cat >> nvt.mdp << 'EOF'
tcoupl                   = V-rescale
tc-grps                  = System
tau-t                    = 0.1
ref-t                    = 300
ld-seed                  = 1729
nstcalcenergy            = 100
nstenergy                = 500
nstlog                   = 5000
nstxout-compressed       = 0
EOF
  grompp grompp_nvt.log -f nvt.mdp -c em.gro -p full.top -o nvt.tpr
  mdrun nvt.log -s nvt.tpr -deffnm nvt -c conf.gro

  python3 "$HELPER" strip-top full_pp.top topol.top \
    --header "SPC/E water (OPLS-AA atom types opls_116, opls_117; spce.itp), self-contained: made by" \
    --header "tests/make_refdata.sh from \`gmx grompp -pp\` output of oplsaa.ff/forcefield.itp + oplsaa.ff/spce.itp" \
    --header "($GMX_VERSION), keeping only what this system uses."
  echo "python3 tests/refdata/refdata.py strip-top full_pp.top topol.top   (self-contained topology)" >> commands.txt

  say "$name: references (rerun, nsteps 0, 500-step NVE)"
  write_nve_mdp > nve.mdp
  sed 's/^nsteps .*/nsteps                   = 0/' nve.mdp > step0.mdp
  grompp grompp_nve.log -f nve.mdp -c conf.gro -p topol.top -o nve.tpr
  grompp grompp_nve_full.log -f nve.mdp -c conf.gro -p full.top -o nve_full.tpr
  grompp grompp_step0.log -f step0.mdp -c conf.gro -p topol.top -o step0.tpr
  mdrun rerun.log -s nve.tpr -rerun conf.gro -deffnm rerun
  mdrun rerun_full.log -s nve_full.tpr -rerun conf.gro -deffnm rerun_full
  mdrun step0.log -s step0.tpr -deffnm step0
  mdrun nve.log -s nve.tpr -deffnm nve
  local terms_rerun=("LJ (SR)" "Coulomb (SR)" "Disper. corr." "Potential")
  energy rerun.edr rerun.xvg "${terms_rerun[@]}"
  python3 "$HELPER" energy "$GMXD" rerun_full.edr rerun_full.xvg "${terms_rerun[@]}"
  # the self-contained topol.top must give exactly the energies of the force-field files
  python3 "$HELPER" same-energies rerun.xvg rerun_full.xvg > same.log || { cat same.log >&2; exit 1; }
  energy step0.edr step0.xvg "Potential" "Kinetic En." "Total Energy" "Temperature" "Pressure" \
    "Pres. DC" "Constr. rmsd" "Vir-XX" "Vir-YY" "Vir-ZZ"
  energy nve.edr nve.xvg "Potential" "Kinetic En." "Total Energy" "Conserved En." "Temperature" "Pressure"

  if [[ $name == spce_1k5 ]]; then
    sed -e 's/^nsteps .*/nsteps                   = 20000/' \
      -e 's/^nstcalcenergy .*/nstcalcenergy            = 100/' \
      -e 's/^nstenergy .*/nstenergy                = 100/' \
      -e 's/^; NVE reference run/; V-rescale (300 K) run/' \
      -e 's/^tcoupl .*/tcoupl                   = V-rescale\ntc-grps                  = System\ntau-t                    = 0.1\nref-t                    = 300/' \
      nve.mdp > vrescale.mdp
    grompp grompp_vrescale.log -f vrescale.mdp -c conf.gro -p topol.top -o vrescale.tpr
  fi

  header header.txt "SPC/E water, $natoms atoms ($nmol molecules): GROMACS reference energies for halomd"
  cat >> header.txt << 'EOF'
lj_sr coulomb_sr disp_corr potential: step 0 of `mdrun -rerun conf.gro` with nve.mdp (kJ/mol).
*0: step 0 of `mdrun` with nve.mdp but nsteps 0 (kJ/mol, K, bar); pres_dc0 is "Pres. DC" (bar). No constr_rmsd0: GROMACS writes "Constr. rmsd" only for LINCS, not SETTLE.
nve_*: the 500-step NVE run with nve.mdp (drifts: least-squares slope vs time, kJ/mol/ps); ndf from md.log nrdf.
The total energy jumps in the first two steps: conf.gro's 3-decimal positions break the SETTLE geometry by
~4e-4 nm (rms) and the first SETTLE step (continuation yes) corrects it; nve_total_drift_per_ps_from_step10 skips it.
EOF
  python3 "$HELPER" reference --water --rerun rerun.xvg --step0 step0.xvg --nve nve.xvg --nve-mdp nve.mdp \
    --csv nve_energy.csv --gro conf.gro --top topol.top --log step0.log --header header.txt --out reference.txt

  local files=(conf.gro topol.top nve.mdp reference.txt nve_energy.csv)
  [[ $name == spce_1k5 ]] && files+=(vrescale.mdp)
  install_files "$w" "$DATA/$name" "${files[@]}"
  cd "$WORK"
}

# ---------------------------------------------------------------------------------------------- LJ fluid
make_lj() {
  local w=$WORK/lj_fluid nwant=1500 box=4.15 # 1500 / 4.15^3 = 20.99 atoms/nm^3
  mkdir -p "$w"
  cd "$w"
  say "lj_fluid: insert $nwant atoms into a $box nm box, minimise, NVT at 100 K"
  cat > ar.gro << 'EOF'
one argon atom
    1
    1AR      AR    1   0.000   0.000   0.000
   0.00000   0.00000   0.00000
EOF
  run insert.log "$GMX" insert-molecules -ci ar.gro -nmol "$nwant" -box "$box" "$box" "$box" \
    -radius 0.15 -try 100 -seed 1729 -o inserted.gro
  local natoms
  natoms=$(sed -n 2p inserted.gro | tr -d ' ')
  [[ $natoms == "$nwant" ]] || { echo "make_refdata.sh: insert-molecules placed $natoms of $nwant atoms" >&2; exit 1; }
  cat > topol.top << EOF
; Argon-like Lennard-Jones fluid (sigma 0.34 nm, epsilon 0.99 kJ/mol), no charges; written by tests/make_refdata.sh

[ defaults ]
; nbfunc  comb-rule  gen-pairs  fudgeLJ  fudgeQQ
1         2          no         1.0      1.0

[ atomtypes ]
; name  at.num  mass     charge  ptype  sigma  epsilon
AR      18      39.948   0.000   A      0.34   0.99

[ moleculetype ]
; molname  nrexcl
AR         1

[ atoms ]
; nr  type  resnr  residue  atom  cgnr  charge  mass
1     AR    1      AR       AR    1     0.000   39.948

[ system ]
Lennard-Jones fluid

[ molecules ]
AR $natoms
EOF
  local lj_nonbonded="cutoff-scheme            = Verlet
nstlist                  = 10
verlet-buffer-tolerance  = -1
rlist                    = 1.1
coulombtype              = Cut-off
rcoulomb                 = 1.0
vdw-modifier             = None
rvdw                     = 1.0
DispCorr                 = EnerPres
pbc                      = xyz"
  cat > em.mdp << EOF
integrator               = steep
nsteps                   = 5000
emtol                    = 50
emstep                   = 0.01
$lj_nonbonded
EOF
  grompp grompp_em.log -f em.mdp -c inserted.gro -p topol.top -o em.tpr
  mdrun em.log -s em.tpr -deffnm em
  cat > nvt.mdp << EOF
integrator               = md
dt                       = 0.002
nsteps                   = 10000
continuation             = no
gen-vel                  = yes
gen-temp                 = 100
gen-seed                 = 1729
$lj_nonbonded
tcoupl                   = V-rescale
tc-grps                  = System
tau-t                    = 0.1
ref-t                    = 100
ld-seed                  = 1729
nstcalcenergy            = 100
nstenergy                = 500
nstlog                   = 5000
nstxout-compressed       = 0
EOF
  grompp grompp_nvt.log -f nvt.mdp -c em.gro -p topol.top -o nvt.tpr
  mdrun nvt.log -s nvt.tpr -deffnm nvt -c conf.gro

  say "lj_fluid: references (rerun, nsteps 0)"
  cat > step0.mdp << EOF
; step-0 reference of halomd's tests (written by tests/make_refdata.sh)
integrator               = md
dt                       = 0.002
nsteps                   = 0
continuation             = yes
$lj_nonbonded
tcoupl                   = no
comm-mode                = Linear
nstcomm                  = 100
nstcalcenergy            = 1
nstenergy                = 1
nstxout-compressed       = 0
EOF
  grompp grompp_step0.log -f step0.mdp -c conf.gro -p topol.top -o step0.tpr
  mdrun rerun.log -s step0.tpr -rerun conf.gro -deffnm rerun
  mdrun step0.log -s step0.tpr -deffnm step0
  energy rerun.edr rerun.xvg "LJ (SR)" "Coulomb (SR)" "Disper. corr." "Potential"
  energy step0.edr step0.xvg "Potential" "Kinetic En." "Total Energy" "Temperature" "Pressure" \
    "Pres. DC" "Vir-XX" "Vir-YY" "Vir-ZZ"
  header header.txt "Lennard-Jones fluid, $natoms atoms: GROMACS reference energies for halomd"
  cat >> header.txt << 'EOF'
lj_sr coulomb_sr disp_corr potential: step 0 of `mdrun -rerun conf.gro` with step0.mdp (kJ/mol).
*0: step 0 of `mdrun` with step0.mdp (nsteps 0) (kJ/mol, K, bar); pres_dc0 is "Pres. DC" (bar); ndf from md.log nrdf.
EOF
  python3 "$HELPER" reference --rerun rerun.xvg --step0 step0.xvg --gro conf.gro --top topol.top \
    --log step0.log --header header.txt --out reference.txt
  install_files "$w" "$DATA/lj_fluid" conf.gro topol.top step0.mdp reference.txt
  cd "$WORK"
}

# ---------------------------------------------------------------------------------------------- water example
make_example() {
  local w=$WORK/example
  mkdir -p "$w"
  cd "$w"
  say "examples/water: run.mdp (checked with grompp)"
  cp "$DATA/spce_1k5/conf.gro" "$DATA/spce_1k5/topol.top" .
  cat > run.mdp << 'EOF'
; halomd water benchmark: SPC/E, reaction field, V-rescale at 300 K (written by tests/make_refdata.sh)
integrator               = md
dt                       = 0.002
nsteps                   = 5000
continuation             = yes
cutoff-scheme            = Verlet
nstlist                  = 10
verlet-buffer-tolerance  = 0.005
coulombtype              = Reaction-Field
epsilon-rf               = 0
rcoulomb                 = 1.0
vdw-modifier             = Potential-shift
rvdw                     = 1.0
DispCorr                 = EnerPres
tcoupl                   = V-rescale
tc-grps                  = System
tau-t                    = 0.1
ref-t                    = 300
nstcalcenergy            = 100
nstenergy                = 500
nstxout-compressed       = 500
nstlog                   = 1000
EOF
  grompp grompp_run.log -f run.mdp -c conf.gro -p topol.top -o run.tpr
  mkdir -p "$EXAMPLE"
  local f
  for f in conf.gro topol.top run.mdp; do cp "$f" "$EXAMPLE/$f"; done
  cd "$WORK"
}

make_water spce_1k5 2.5 10000 # 20 ps
make_water spce_9k 4.5 5000   # 10 ps
make_lj
make_example

say "done; results:"
for d in "$DATA"/spce_1k5 "$DATA"/spce_9k "$DATA"/lj_fluid "$EXAMPLE"; do
  printf '  %-40s %s\n' "${d#"$ROOT"/}" "$(du -sh "$d" | cut -f1)"
done
if [[ -s $NOTES ]]; then
  echo "grompp notes:"
  cat "$NOTES"
fi
