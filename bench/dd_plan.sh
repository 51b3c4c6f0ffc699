#!/usr/bin/env bash
# The domain-decomposition plan (src/domdec) on a 45k-atom SPC/E box for 2, 4, 8 and 16 domains: grid chosen,
# pulses per dimension, halo atoms and bytes per pulse and per step, plan build time on an NS step, and, for
# scale, one NS window of the CPU reference run on one domain. Writes bench/results/dd_plan.json (BENCH.md).
#
# System "spce_45k": bench/systems/spce_5k6 (5640 atoms, 3.83 nm, made by bench/make_systems.sh) replicated
# 2x2x2 by `halomd genconf`: 45120 atoms in a 7.66 nm cube.
# Usage: bench/dd_plan.sh            BUILD=folder (default build/release) to reuse a build.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
root=$(pwd)
build=${BUILD:-$root/build/release}
jobs=${JOBS:-2}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHALOMD_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target halomd halomd_domdec halomd_io -j "$jobs" >/dev/null
version=$("$build/halomd" --version | awk '{print $2}')
g++ -O2 -std=c++20 -DHALOMD_BENCH_VERSION="\"$version\"" -I src bench/dd_plan_main.cpp \
  "$build/libhalomd_domdec.a" "$build/libhalomd_io.a" -lfmt -o "$build/dd_plan"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/halomd" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 \
  -o "$work/spce_45k" >/dev/null
plan_cmd="dd_plan spce_45k.gro spce_45k.top --rlist 1.1 --domains 2,4,8,16 --repeats 21 --window-steps 10"
"$build/dd_plan" "$work/spce_45k.gro" "$work/spce_45k.top" --rlist 1.1 --domains 2,4,8,16 --repeats 21 \
  --window-steps 10 > "$work/records.json"

# One NS window of work for scale: the CPU reference on the whole box (1 domain), benchmark settings (BENCH.md).
steps=40
bench_mdp "$steps" > "$work/run.mdp"
run_cmd="halomd run -c spce_45k.gro -p spce_45k.top -f run.mdp -o run --threads $jobs"
"$build/halomd" run -c "$work/spce_45k.gro" -p "$work/spce_45k.top" -f "$work/run.mdp" -o "$work/run" \
  --threads "$jobs" >/dev/null

python3 - "$work" "$root" "$plan_cmd" "$run_cmd" "$steps" <<'PY'
import datetime, json, os, platform, subprocess, sys
work, root, plan_cmd, run_cmd, steps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
recs = json.load(open(f'{work}/records.json'))
run = json.load(open(f'{work}/run/run.json'))
us_per_step = run['wall_s'] / run['steps'] * 1e6
window_ms = us_per_step * run['nstlist'] / 1000
for r in recs:
    r['command'] = 'bench/dd_plan.sh: ' + plan_cmd
    r['ns_window_ms_cpu_1_domain'] = round(window_ms, 3)
    r['plan_build_fraction_of_ns_window'] = round(r['plan_build_ms_median'] / window_ms, 5)
ref = {"engine": "halomd", "version": run['version'], "backend": "cpu", "transport": "none", "system": "spce_45k",
       "atoms": run['atoms'], "gpus": 0, "ranks": 1, "domains": 1, "dd": [1, 1, 1], "threads": run['threads'],
       "steps": run['steps'], "dt_ps": run['dt_ps'], "nstlist": run['nstlist'], "rlist_nm": run['rlist_nm'],
       "ns_per_day": run['ns_per_day'], "us_per_step": round(us_per_step, 1), "ns_window_ms": round(window_ms, 3),
       "phases_s": run['phases'], "note": "reference for scale: one NS window of the whole box on the CPU executor",
       "command": run_cmd}
def cpu_name():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return platform.processor()
commit = subprocess.run(['git', '-C', root, 'rev-parse', '--short', 'HEAD'], capture_output=True,
                        text=True).stdout.strip()
dirty = subprocess.run(['git', '-C', root, 'status', '--porcelain', '--', 'src/domdec'], capture_output=True,
                       text=True).stdout.strip()
out = {"name": "dd_plan", "date": datetime.date.today().isoformat(),
       "commit": commit + ("+uncommitted src/domdec" if dirty else ""),
       "machine": f"{cpu_name()}, {os.cpu_count()} cores (no GPU)", "command": "bench/dd_plan.sh",
       "system_note": "spce_45k: bench/systems/spce_5k6 replicated 2x2x2 by halomd genconf (45120 atoms, 7.66 nm cube)",
       "records": recs + [ref]}
os.makedirs(f'{root}/bench/results', exist_ok=True)
json.dump(out, open(f'{root}/bench/results/dd_plan.json', 'w'), indent=2)
print(f"NS window (1 domain, CPU, {run['threads']} threads): {window_ms:.1f} ms (nstlist {run['nstlist']})")
for r in recs:
    print(f"{r['domains']:3d} domains {r['dd']}: pulses {r['pulses_per_dim']}, halo atoms/domain max "
          f"{r['halo_atoms_per_domain_max']:.0f}, bytes/step max {r['halo_bytes_per_step']:.0f}, "
          f"build {r['plan_build_ms_median']:.2f} ms ({100 * r['plan_build_fraction_of_ns_window']:.2f}% of a window), "
          f"migrating {r['migrating_atoms_after_window']}")
PY
