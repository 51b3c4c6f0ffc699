# Shared by tests/make_*_refdata.sh (sourced; the caller sets set -euo pipefail). Sets TESTS (the tests
# folder), GMX and GMXD (gmx and gmx_d, overridable by GMX and GMX_D), version (gmx_d's, which must be 2022),
# WORK (a temporary folder, removed on exit); checks that gmx_d, python3 and, with NEED_GMX=1, gmx are there;
# defines run NAME COMMAND... (runs COMMAND in $WORK into NAME.log; on failure shows the log's tail and
# stops). $SCRIPT names the caller in messages.
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
trap 'rm -rf "$WORK"' EXIT
run() {
  local name=$1
  shift
  (cd "$WORK" && "$@" > "$name.log" 2>&1) || {
    echo "$SCRIPT: $name failed:" >&2
    tail -20 "$WORK/$name.log" >&2
    exit 1
  }
}
