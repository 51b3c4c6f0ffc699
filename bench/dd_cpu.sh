#!/usr/bin/env bash
# The domain-decomposed CPU executor on this machine's cores: spce_9k (8916 atoms, 4.5 nm; tests/data) for
# 300 steps of NVE (tests/data/spce_9k/nve.mdp: rlist 1.1, nstlist 10, energies every 100 steps), as one
# domain, as 2 domains in one process (local transport) and as 2 MPI ranks (mpi transport), with the same
# total number of threads. Writes bench/results/dd_cpu.json (../shared/BENCH.md format).
# Usage: bench/dd_cpu.sh [halomd binary]   (default build/release/halomd, built with MPI if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${1:-$root/build/release/halomd}
if [ ! -x "$bin" ]; then
  cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DHALOMD_BUILD_TESTS=OFF -DHALOMD_ENABLE_MPI=ON >/dev/null
  cmake --build build/release -j "$(nproc)" >/dev/null
fi
command -v mpirun >/dev/null || { echo "mpirun not found: apt-get install openmpi-bin libopenmpi-dev" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
data=$root/tests/data/spce_9k
steps=300
sed -e "s/^nsteps .*/nsteps = $steps/" -e 's/^nstcalcenergy .*/nstcalcenergy = 100/' \
  -e 's/^nstenergy .*/nstenergy = 100/' "$data/nve.mdp" > "$work/run.mdp"
base="$bin run -c $data/conf.gro -p $data/topol.top -f $work/run.mdp"
mpi="mpirun --oversubscribe --allow-run-as-root"
records=()
for cfg in "one|$base --threads 2" "local2|$base --threads 2 --domains 2" \
  "mpi2|$mpi -n 2 $base --threads 1"; do
  name=${cfg%%|*}
  cmd="${cfg#*|} -o $work/$name"
  $cmd > "$work/$name.log"
  records+=("$name|$cmd")
done

python3 - "$work" "$root" "$steps" "${records[@]}" <<'PY'
import json, subprocess, sys, datetime, os, platform
work, root, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
def cpu_name():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return platform.processor()
recs = []
for item in sys.argv[4:]:
    name, cmd = item.split('|', 1)
    run = json.load(open(f'{work}/{name}/run.json'))
    rec = {"engine": "halomd", "version": run['version'], "backend": "cpu", "transport": run['transport'],
           "system": "spce_9k", "atoms": run['atoms'], "gpus": 0, "ranks": run.get('ranks', 1),
           "domains": run['domains'], "dd": run.get('dd', [1, 1, 1]), "threads": run['threads'],
           "steps": steps, "dt_ps": run['dt_ps'], "nstlist": run['nstlist'], "rlist_nm": run['rlist_nm'],
           "ns_per_day": run['ns_per_day'], "us_per_step": run['regular_step_us'],
           "host_syncs_per_step": run['host_syncs_per_step'], "mpi_waits_per_step": run['mpi_waits_per_step'],
           "launches_per_step": run['launches_per_step'], "ns_step_us": run['ns_step_us'],
           "halo_bytes_per_step": run['halo_bytes_per_step'], "phases_s": run['phases'],
           "command": cmd.replace(work, 'WORK')}
    for key in ('pulses', 'halo_atoms_per_domain', 'halo_bytes_per_step_per_domain', 'load_imbalance',
                'migrated_atoms', 'halo_exchange_s'):
        if key in run:
            rec[key] = run[key]
    recs.append(rec)
commit = subprocess.run(['git', '-C', root, 'rev-parse', '--short', 'HEAD'], capture_output=True,
                        text=True).stdout.strip()
out = {"name": "dd_cpu", "date": datetime.date.today().isoformat(), "commit": commit,
       "machine": f"{cpu_name()}, {os.cpu_count()} cores (no GPU)", "command": "bench/dd_cpu.sh",
       "records": recs}
os.makedirs(f'{root}/bench/results', exist_ok=True)
json.dump(out, open(f'{root}/bench/results/dd_cpu.json', 'w'), indent=2)
for r in recs:
    print(f"{r['transport']:6s} {r['domains']} domains, {r['ranks']} ranks x {r['threads']} threads: "
          f"{r['ns_per_day']:.2f} ns/day, regular step {r['us_per_step']:.0f} us, NS step {r['ns_step_us']:.0f} us, "
          f"{r['mpi_waits_per_step']} waits and {r['halo_bytes_per_step']:.0f} halo bytes per step")
PY
