#!/usr/bin/env bash
# Where a PME step of the CUDA executor goes, kernel by kernel: Nsight Compute's gpu__time_duration of every
# kernel of a window of regular steps (after the first search window), on SPC/E water of 45k atoms (or SYSTEM
# = spce_9k) with coulombtype = PME (and HALOMD_GPU_PME_OVERLAP as exported). Prints the mean time per kernel
# name and launches per step. A diagnostic for bench/NOTES.md, run on the GPU machine:
#   bash bench/pme_kernels.sh devbin/halomd
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
bin=$(realpath "${1:?usage: bench/pme_kernels.sh HALOMD_BINARY}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
system=${SYSTEM:-spce_45k}
if [ "$system" = spce_45k ]; then
  "$bin" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 \
    -o "$work/sys" > /dev/null
else
  cp tests/data/spce_9k/conf.gro "$work/sys.gro"
  cp tests/data/spce_9k/topol.top "$work/sys.top"
fi
bench_mdp 100 | sed "s/^coulombtype = .*/coulombtype = PME/" > "$work/run.mdp"
# Kernels launched inside CUDA graphs are profiled one by one with --graph-profiling node.
(cd "$work" && ncu --graph-profiling node --metrics gpu__time_duration.sum --launch-skip "${SKIP:-400}" \
  --launch-count "${COUNT:-200}" --csv "$bin" run -c sys.gro -p sys.top -f run.mdp -o out --backend cuda \
  > ncu.csv 2> ncu.err) || { tail -20 "$work/ncu.err"; exit 1; }
python3 - "$work/ncu.csv" << 'PY'
import csv, collections, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"'))]
t = collections.defaultdict(list)
for r in rows:
    if r.get("Metric Name") == "gpu__time_duration.sum":
        scale = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6}.get(r.get("Metric Unit", "nsecond"), 1.0)
        t[r["Kernel Name"].split("(")[0][:60]].append(scale * float(r["Metric Value"].replace(",", "")))
total = sum(sum(v) for v in t.values())
for k, v in sorted(t.items(), key=lambda kv: -sum(kv[1])):
    print(f"{k:60s} n {len(v):4d}  mean {sum(v) / len(v) / 1e3:8.2f} us  share {100 * sum(v) / total:5.1f}%")
print(f"kernels profiled: {sum(len(v) for v in t.values())}, total {total / 1e3:.1f} us")
PY
