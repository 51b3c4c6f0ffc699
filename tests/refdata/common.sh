# Shared by tests/make_*_refdata.sh (sourced; the caller sets set -euo pipefail). Sets TESTS (the tests
# folder), GMX and GMXD (gmx and gmx_d, overridable by GMX and GMX_D), version (gmx_d's, which must be 2022),
# WORK (a temporary folder, removed on exit); checks that gmx_d, python3 and, with NEED_GMX=1, gmx are there;
# defines run NAME COMMAND... (runs COMMAND in $WORK into NAME.log; on failure shows the log's tail and
# stops), set_mdp_options and tc_case (below). $SCRIPT names the caller in messages and headers.
SCRIPT=$(basename "$0")
TESTS=$(cd "$(dirname "$0")" && pwd)
GMX=${GMX:-gmx}
GMXD=${GMX_D:-gmx_d}
for exe in "$GMXD" python3 $([ "${NEED_GMX:-0}" = 1 ] && echo "$GMX"); do
  command -v "$exe" > /dev/null || { echo "$SCRIPT: $exe not found" >&2; exit 1; }
done
version=$("$GMXD" --version 2> /dev/null | sed -n 's/^GROMACS version: *//p')
[[ $version == 2022* ]] || { echo "$SCRIPT: needs GROMACS 2022, $GMXD is $version" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/halomd_${SCRIPT%.sh}.XXXXXX")
[ "${KEEP_WORK:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
run() {
  local name=$1
  shift
  (cd "$WORK" && "$@" > "$name.log" 2>&1) || {
    echo "$SCRIPT: $name failed:" >&2
    tail -20 "$WORK/$name.log" >&2
    exit 1
  }
}
# tc_case TAG MDP NDF_OUT REF_OUT T1 T2 NOTE [grompp arguments...]: runs gmx_d on $OUT/MDP with $SYS's
# conf.gro and topol.top (grompp -maxwarn $MAXWARN, 0 by default); writes grompp's degrees
# of freedom per group to NDF_OUT and per step the total, conserved energy and the two groups' T to REF_OUT;
# NOTE (the grompp arguments as the headers name them) ends both files' first line.
tc_case() {
  local tag=$1 mdp=$2 ndf=$3 refout=$4 t1=$5 t2=$6 note=$7
  shift 7
  (cd "$WORK" && "$GMXD" grompp -maxwarn "${MAXWARN:-0}" -f "$OUT/$mdp" -c "$SYS/conf.gro" -p "$SYS/topol.top" "$@" \
    -o "$tag.tpr" > "grompp_$tag.log" 2>&1 &&
    "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s "$tag.tpr" -deffnm "$tag" > "mdrun_$tag.log" 2>&1) ||
    { tail -20 "$WORK/grompp_$tag.log" "$WORK/mdrun_$tag.log"; exit 1; }
  {
    echo "# group ndf: grompp's 'Number of degrees of freedom in T-Coupling group', gmx_d $version$note"
    sed -n 's/^Number of degrees of freedom in T-Coupling group \(.*\) is \([0-9.]*\)$/\1 \2/p' \
      "$WORK/grompp_$tag.log"
  } > "$OUT/$ndf"
  (cd "$WORK" && printf 'Total-Energy\nConserved-En.\n%s\n%s\n\n' "$t1" "$t2" |
    "$GMXD" energy -f "$tag.edr" -o "$tag.xvg" > "energy_$tag.log" 2>&1)
  {
    echo "# step total conserved $t1 $t2 (kJ/mol, K): gmx_d $version, $mdp${note#,};"
    echo "# written by tests/$SCRIPT"
    python3 "$TESTS/refdata/refdata.py" columns "$WORK/$tag.xvg" "Total Energy" "Conserved En." "$t1" "$t2"
  } > "$OUT/$refout"
  cat "$OUT/$ndf"
}
# set_mdp_options FILE KEY=VALUE...: each option's line, where FILE has one, removed and "KEY = VALUE" appended.
set_mdp_options() {
  local f=$1 kv
  shift
  for kv in "$@"; do
    sed -i "/^${kv%%=*} /d" "$f"
    echo "${kv%%=*} = ${kv#*=}" >> "$f"
  done
}
