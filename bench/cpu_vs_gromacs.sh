#!/usr/bin/env bash
# halomd's CPU path against `gmx mdrun -nt 2` on the same inputs, same machine, same run:
# SPC/E water of ~1.5k and ~9k atoms (tests/data/spce_1k5, spce_9k, made by tests/make_refdata.sh) with the
# benchmark settings of ../shared/BENCH.md. Writes bench/results/cpu_vs_gromacs.json (BENCH.md format).
# Usage: bench/cpu_vs_gromacs.sh [halomd binary]   (default build/release/halomd; builds it if missing)
# Environment: COULOMB=PME runs both with coulombtype = PME (GROMACS with -notunepme) and writes
# bench/results/cpu_vs_gromacs_pme.json; SYSTEMS="name:steps ..." (default "spce_1k5:3000 spce_9k:1000").
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
root=$(pwd)
bin=${1:-$root/build/release/halomd}
if [ ! -x "$bin" ]; then
  cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DHALOMD_BUILD_TESTS=OFF >/dev/null
  cmake --build build/release -j "$(nproc)" >/dev/null
fi
command -v gmx >/dev/null || { echo "gmx not found: apt-get install gromacs" >&2; exit 1; }
threads=2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
records=()

coulomb=${COULOMB:-Reaction-Field}
report=cpu_vs_gromacs
[ "$coulomb" = Reaction-Field ] || report=cpu_vs_gromacs_$(echo "$coulomb" | tr 'A-Z-' 'a-z_')
for sys in ${SYSTEMS:-spce_1k5:3000 spce_9k:1000}; do
  name=${sys%%:*}
  steps=${sys##*:}
  data=$root/tests/data/$name
  # energies every 100 steps: the drift fit
  bench_mdp "$steps" 10 100 | sed "s/^coulombtype = .*/coulombtype = $coulomb/" > "$work/$name.mdp"
  # halomd
  hcmd="$bin run -c $data/conf.gro -p $data/topol.top -f $work/$name.mdp -o $work/h_$name --threads $threads"
  $hcmd > "$work/h_$name.log"
  # GROMACS (mixed precision, its normal build), same inputs and thread count
  (cd "$work" && gmx grompp -f "$name.mdp" -c "$data/conf.gro" -p "$data/topol.top" -o "g_$name.tpr" -maxwarn 1 \
      >/dev/null 2>&1)
  gcmd="gmx mdrun -s g_$name.tpr -nt $threads -deffnm g_$name -notunepme"
  (cd "$work" && $gcmd >/dev/null 2>&1)
  records+=("$name|$steps|$hcmd|$gcmd")
done

python3 - "$work" "$root" "$threads" "$coulomb" "$report" "${records[@]}" <<'PY'
import json, re, subprocess, sys, datetime, os, platform
work, root, threads, coulomb, report = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
recs = []
def cpu_name():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return platform.processor()
gmx_version = subprocess.run(['gmx', '--version'], capture_output=True, text=True).stdout
gmx_version = re.search(r'GROMACS version:\s+(\S+)', gmx_version).group(1)
for item in sys.argv[6:]:
    name, steps, hcmd, gcmd = item.split('|')
    run = json.load(open(f'{work}/h_{name}/run.json'))
    log = open(f'{work}/g_{name}.log').read()
    perf = re.search(r'Performance:\s+([\d.]+)\s+([\d.]+)', log)
    g_nsday = float(perf.group(1))
    g_nstlist = int(re.findall(r'nstlist\s*=\s*(\d+)', log)[-1])
    g_rlist = float(re.findall(r'rlist\s*=\s*([\d.]+)', log)[-1])
    atoms = run['atoms']
    # conserved-energy drift of the halomd run (kJ/mol/ps per atom): least-squares slope of energy.csv's
    # conserved column from step 200 on (the first steps settle the 3-decimal .gro onto the constraints)
    lines = open(f'{work}/h_{name}/energy.csv').read().split('\n')
    head = lines[0].split(',')
    it, ic = head.index('time_ps'), head.index('conserved')
    rows = [l.split(',') for l in lines[1:] if l]
    pts = [(float(r[it]), float(r[ic])) for r in rows if int(r[0]) >= 200]
    mt = sum(t for t, _ in pts) / len(pts)
    mc = sum(c for _, c in pts) / len(pts)
    drift = sum((t - mt) * (c - mc) for t, c in pts) / sum((t - mt) ** 2 for t, _ in pts) / atoms
    recs.append({"engine": "halomd", "version": run['version'], "backend": "cpu", "transport": "none",
                 "system": name, "atoms": atoms, "gpus": 0, "ranks": 1, "domains": 1, "dd": [1, 1, 1],
                 "threads": threads, "steps": int(steps), "dt_ps": 0.002, "nstlist": run['nstlist'],
                 "rlist_nm": run['rlist_nm'], "ns_per_day": run['ns_per_day'],
                 "us_per_step": 0.002 * 1e-3 * 86400 / run['ns_per_day'] * 1e6,
                 "host_syncs_per_step": 0, "mpi_waits_per_step": 0, "launches_per_step": 0,
                 "ns_step_us": run['ns_step_us'], "halo_bytes_per_step": 0, "phases_s": run['phases'],
                 "drift_kj_mol_ps_atom": drift,
                 "command": hcmd})
    recs.append({"engine": "gromacs", "version": gmx_version, "backend": "cpu", "transport": "none",
                 "system": name, "atoms": atoms, "gpus": 0, "ranks": 1, "domains": 1, "dd": [1, 1, 1],
                 "threads": threads, "steps": int(steps), "dt_ps": 0.002, "nstlist": g_nstlist,
                 "rlist_nm": g_rlist, "ns_per_day": g_nsday,
                 "us_per_step": 0.002 * 1e-3 * 86400 / g_nsday * 1e6,
                 "command": "gmx grompp -f bench.mdp -c conf.gro -p topol.top -o g.tpr && " + gcmd})
commit = subprocess.run(['git', '-C', root, 'rev-parse', '--short', 'HEAD'], capture_output=True,
                        text=True).stdout.strip()
ratios = {}
for name in sorted({r['system'] for r in recs}):
    h = next(r for r in recs if r['system'] == name and r['engine'] == 'halomd')
    g = next(r for r in recs if r['system'] == name and r['engine'] == 'gromacs')
    ratios[name] = round(h['ns_per_day'] / g['ns_per_day'], 3)
out = {"name": report, "coulombtype": coulomb, "date": datetime.date.today().isoformat(), "commit": commit,
       "machine": f"{cpu_name()}, {os.cpu_count()} cores (no GPU)",
       "command": ("" if coulomb == "Reaction-Field" else f"COULOMB={coulomb} ") + "bench/cpu_vs_gromacs.sh",
       "ratios_halomd_over_gromacs": ratios, "records": recs}
os.makedirs(f'{root}/bench/results', exist_ok=True)
json.dump(out, open(f'{root}/bench/results/{report}.json', 'w'), indent=2)
for name, r in ratios.items():
    print(f"{name}: halomd/gromacs ns/day = {r}")
PY
