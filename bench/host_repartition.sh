#!/usr/bin/env bash
# A repartition's host side on this machine (bench/NOTES.md, fifteenth session): bench/dd_repartition_main.cpp
# (the shared host parts of a repartition of 4 domains of 45k atoms, per domain) alone with fresh pages and
# with halomd's malloc options, and four copies at once; bench/mpi_probe.cpp (a one-value MPI_Allreduce and a
# ring of MPI_Sendrecv between used and fresh buffers) on 2 and 4 ranks, with glibc's default malloc and with
# halomd's options (as GLIBC_TUNABLES). Writes bench/results/host_repartition.json (../shared/BENCH.md's
# header fields; the records are this benchmark's own).
# Usage: bench/host_repartition.sh   BUILD=folder (default build/release) for the CPU libraries; or, on a
# machine without the build's packages, prebuilt binaries: HALOMD_BIN, DD_REPARTITION_BIN, MPI_PROBE_BIN
# (and COMMIT, the commit they were built from, where the copy's git history is not the build's).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${BUILD:-$root/build/release}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${DD_REPARTITION_BIN:-}" ]; then
  cp "$DD_REPARTITION_BIN" "$work/dd_repartition"
  cp "${MPI_PROBE_BIN:?with DD_REPARTITION_BIN}" "$work/mpi_probe"
  halomd=${HALOMD_BIN:?with DD_REPARTITION_BIN}
else
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHALOMD_BUILD_TESTS=OFF -DHALOMD_ENABLE_CUDA=OFF \
      -DHALOMD_ENABLE_MPI=OFF > /dev/null
  fi
  cmake --build "$build" --target halomd halomd_cpu halomd_comm halomd_domdec halomd_io -j "$jobs" > /dev/null
  g++ -O2 -std=c++20 -fopenmp -I src bench/dd_repartition_main.cpp "$build/libhalomd_cpu.a" \
    "$build/libhalomd_comm.a" "$build/libhalomd_domdec.a" "$build/libhalomd_io.a" -lfmt -lfftw3 -o "$work/dd_repartition"
  mpicxx -O2 -o "$work/mpi_probe" bench/mpi_probe.cpp
  halomd=$build/halomd
fi
"$halomd" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 \
  -o "$work/spce_45k" > /dev/null

rep="dd_repartition spce_45k.gro spce_45k.top --repeats 200"
tunables=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=16777216
(cd "$work" && HALOMD_BENCH_FRESH_PAGES=1 ./$rep > alone_fresh.json && ./$rep > alone_kept.json)
(cd "$work" && for i in 1 2 3 4; do ./$rep > "four_$i.json" & done && wait)
mpirun="mpirun --oversubscribe --allow-run-as-root --bind-to none"
for n in 2 4; do
  (cd "$work" && $mpirun -n $n ./mpi_probe > "probe_${n}_default.json" &&
    GLIBC_TUNABLES=$tunables $mpirun -x GLIBC_TUNABLES -n $n ./mpi_probe > "probe_${n}_kept.json")
done

python3 - "$work" "$root" "$rep" "$tunables" << 'PY'
import datetime, json, os, platform, subprocess, sys
work, root, rep, tunables = sys.argv[1:5]
def load(name):
    return json.load(open(os.path.join(work, name)))
def cpu_name():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return platform.processor()
gpu = subprocess.run(['nvidia-smi', '--query-gpu=name', '--format=csv,noheader'], capture_output=True,
                     text=True).stdout.strip().splitlines() if subprocess.run(['which', 'nvidia-smi'],
                     capture_output=True).returncode == 0 else []
records = [
    dict(load('alone_fresh.json'), run='alone, glibc default malloc', command='HALOMD_BENCH_FRESH_PAGES=1 ' + rep),
    dict(load('alone_kept.json'), run="alone, halomd's malloc options", command=rep),
] + [dict(load(f'four_{i}.json'), run=f"copy {i} of 4 at once, halomd's malloc options", command=rep)
     for i in range(1, 5)]
for n in (2, 4):
    records.append(dict(load(f'probe_{n}_default.json'), run='mpi_probe, glibc default malloc',
                        command=f'mpirun -n {n} mpi_probe'))
    records.append(dict(load(f'probe_{n}_kept.json'), run="mpi_probe, halomd's malloc options",
                        command=f'GLIBC_TUNABLES={tunables} mpirun -x GLIBC_TUNABLES -n {n} mpi_probe'))
commit = os.environ.get('COMMIT') or subprocess.run(['git', '-C', root, 'rev-parse', '--short', 'HEAD'],
                                                    capture_output=True, text=True).stdout.strip()
out = {"name": "host_repartition", "date": datetime.date.today().isoformat(), "commit": commit,
       "machine": f"{cpu_name()}, {os.cpu_count()} cores" + (f", {gpu[0]}" if gpu else " (no GPU)"),
       "command": "bench/host_repartition.sh",
       "system_note": "spce_45k: bench/systems/spce_5k6 replicated 2x2x2 by halomd genconf; 4 domains 2x2x1, "
                      "plan range rlist 1.094 + 2 x skin 0.45 nm, atoms moved by 10 steps of their velocities",
       "records": records}
json.dump(out, open(os.path.join(root, 'bench/results/host_repartition.json'), 'w'), indent=2)
for r in records:
    if 'us_per_domain' in r:
        print(f"{r['run']}: {r['total_us_per_domain']:.0f} us per domain: " +
              ' '.join(f"{k} {v:.0f}" for k, v in r['us_per_domain'].items()))
    else:
        print(f"{r['run']}, {r['ranks']} ranks: allreduce {r['allreduce_1_double_us']} us; " +
              ' '.join(f"{x['bytes']} B {x['used_buffers_us']}/{x['fresh_buffers_us']} us"
                       for x in r['sendrecv_ring']))
PY
