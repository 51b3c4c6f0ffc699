#!/usr/bin/env bash
# Makes tests/data/verlet_buffer: .mdp files that vary what GROMACS's Verlet buffer estimate depends on
# (temperature and its source, nstlist, tolerance, reaction field, plain cut-off or PME, epsilon-rf, epsilon-r,
# cut-off, LJ modifier, SPC/E water or an LJ fluid), and reference.txt with, for each, the rlist that
# grompp 2022 (gmx_d, double precision) calculates for a 1x1 atom pair-list and the temperature it used,
# both read from grompp's output. test_verlet_buffer.cpp checks halomd's estimate against them.
# Needs GROMACS 2022 (gmx_d). Usage: bash tests/make_verlet_refdata.sh   (GMX_D overrides the binary)
set -euo pipefail
# common.sh requires gmx_d 2022: GROMACS 2023 changed the estimate (effective density, LJ second and third
# derivatives).
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
OUTDIR=$TESTS/data/verlet_buffer
mkdir -p "$OUTDIR"

# case system base-mdp (under tests/data) key=value...
cases=(
  "rf_inf_300_nst10 spce_1k5 spce_1k5/vrescale"
  "rf78 spce_1k5 spce_1k5/vrescale epsilon-rf=78"
  "cutoff spce_1k5 spce_1k5/vrescale coulombtype=Cut-off"
  "epsr2_nomod spce_1k5 spce_1k5/vrescale epsilon-r=2 vdw-modifier=None"
  "t350_nst20_tol1e-3 spce_9k spce_1k5/vrescale ref-t=350 nstlist=20 verlet-buffer-tolerance=0.001"
  "t273_nst5_rf2 spce_1k5 spce_1k5/vrescale ref-t=273 nstlist=5 epsilon-rf=2 verlet-buffer-tolerance=0.0005"
  "nve_genvel310_rc09 spce_1k5 spce_1k5/vrescale tcoupl=no gen-vel=yes gen-temp=310 continuation=no rcoulomb=0.9 rvdw=0.9"
  "nve_velocities spce_9k spce_1k5/vrescale tcoupl=no"
  "nst40 spce_9k spce_1k5/vrescale nstlist=40"
  "nst100_dt1fs spce_9k spce_1k5/vrescale nstlist=100 dt=0.001"
  "rf78_epsr2 spce_1k5 spce_1k5/vrescale epsilon-rf=78 epsilon-r=2"
  "rf5_epsr4 spce_1k5 spce_1k5/vrescale epsilon-rf=5 epsilon-r=4"
  "cutoff_epsr2 spce_1k5 spce_1k5/vrescale coulombtype=Cut-off epsilon-r=2"
  "nst100_dt2fs spce_9k spce_1k5/vrescale nstlist=100"
  "tol1e-7 spce_1k5 spce_1k5/vrescale verlet-buffer-tolerance=1e-7"
  "reft0 spce_1k5 spce_1k5/vrescale ref-t=0"
  "nst1 spce_1k5 spce_1k5/vrescale nstlist=1"
  "pme spce_1k5 spce_1k5/vrescale coulombtype=PME"
  "pme_rtol1e-6_rc09_nst20 spce_9k spce_1k5/vrescale coulombtype=PME ewald-rtol=1e-6 rcoulomb=0.9 rvdw=0.9 nstlist=20"
  "lj_fluid_120 lj_fluid lj_fluid/step0 tcoupl=V-rescale tc-grps=System tau-t=0.1 ref-t=120 nstlist=40 verlet-buffer-tolerance=0.00002"
)

ref=$WORK/reference.txt
echo "# case system rlist_1x1_nm temperature_K  (gmx_d grompp $version; written by tests/make_verlet_refdata.sh)" > "$ref"
for c in "${cases[@]}"; do
  read -r name system base sets <<< "$c"
  src=$TESTS/data/$base.mdp
  mdp=$WORK/$name.mdp
  python3 - "$src" "$mdp" "verlet-buffer-tolerance=0.005" $sets << 'PY'
import sys
src, dst, *sets = sys.argv[1:]
lines = [l for l in open(src).read().splitlines() if not l.startswith(';')]
kv = {}
order = []
for l in lines:
    if '=' not in l: continue
    k, v = [s.strip() for s in l.split('=', 1)]
    kv[k] = v; order.append(k)
kv.pop('rlist', None)
for s in sets:
    k, v = s.split('=', 1)
    if k not in kv: order.append(k)
    kv[k] = v
if kv.get('tcoupl', 'no').lower() == 'no':
    for k in ('tc-grps', 'tau-t', 'ref-t'): kv.pop(k, None)
with open(dst, 'w') as f:
    f.write('; Verlet buffer case of halomd\'s tests (written by tests/make_verlet_refdata.sh)\n')
    for k in order:
        if k in kv: f.write(f'{k:<24} = {kv[k]}\n')
PY
  out=$( (cd "$WORK" && "$GMXD" grompp -f "$mdp" -c "$TESTS/data/$system/conf.gro" -p "$TESTS/data/$system/topol.top" \
    -o "$WORK/$name.tpr" -po "$WORK/$name.mdout.mdp" -maxwarn 0) 2>&1) || { echo "$out" | tail -20; exit 1; }
  rlist=$(echo "$out" | sed -n 's/^Calculated rlist for 1x1 atom pair-list as \([0-9.]*\) nm.*/\1/p')
  temp=$(echo "$out" | sed -n 's/^Determining Verlet buffer for a tolerance of .* at \([0-9.e+-]*\) K$/\1/p')
  if [ -z "$rlist" ] || [ -z "$temp" ]; then
    echo "$out" | grep -i -A2 "verlet\|rlist" || true
    echo "make_verlet_refdata.sh: no rlist for $name" >&2
    exit 1
  fi
  echo "$name $system $rlist $temp" >> "$ref"
  echo "$name: rlist $rlist nm at $temp K"
done
# Only now, with every case made, replace the folder's contents.
rm -f "$OUTDIR"/*.mdp
for c in "${cases[@]}"; do
  read -r name _ <<< "$c"
  cp "$WORK/$name.mdp" "$OUTDIR/$name.mdp"
done
cp "$ref" "$OUTDIR/reference.txt"
