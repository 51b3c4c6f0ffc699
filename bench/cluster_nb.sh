#!/usr/bin/env bash
# The cluster-pair force kernel of bench/cluster_nb.cu against halomd's atom-pair kernel on the same GPU
# (bench/NOTES.md, sixteenth and seventeenth sessions): SPC/E 9k, 45k and 203k atoms; the cluster kernel at
# rlist 1.094 (halomd's, from GROMACS's Verlet buffer estimate: compare these records with the atom-pair
# ones) and 1.03 (the sixteenth session's) with entries cut into 16 or 8 j-clusters, plain and split;
# halomd's kernel times from `HALOMD_GPU_TIMING=1 halomd run`. Writes
# bench/results/cluster_nb.json (../shared/BENCH.md's header fields; the records are this benchmark's own).
# Usage: bench/cluster_nb.sh   HALOMD_BIN (default build-nv/halomd) and CLUSTER_NB_BIN (default: built here
# with nvcc against build/test's libraries) for prebuilt binaries; COMMIT where git does not know the build's.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
halomd=$(realpath "${HALOMD_BIN:-build-nv/halomd}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${CLUSTER_NB_BIN:-}" ]; then
  cp "$CLUSTER_NB_BIN" "$work/cluster_nb"
else
  nvcc -O3 -std=c++20 -arch=sm_90 -I src -I bench bench/cluster_nb.cu build/test/libhalomd_cpu.a build/test/libhalomd_io.a \
    -lfmt -lfftw3 -Xcompiler -fopenmp -o "$work/cluster_nb"
fi
"$halomd" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 \
  -o "$work/spce_45k" > /dev/null
"$halomd" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 3 3 4 \
  -o "$work/spce_203k" > /dev/null
cp tests/data/spce_9k/conf.gro "$work/spce_9k.gro"
cp tests/data/spce_9k/topol.top "$work/spce_9k.top"
for sys in spce_9k spce_45k spce_203k; do
  bench_mdp 2000 > "$work/$sys.mdp"
  for rl in 1.03 1.094; do
    for ch in 16 8; do
      for sp in 0 1; do
        (cd "$work" && ./cluster_nb -c $sys.gro -p $sys.top -f $sys.mdp --rlist $rl --chunk $ch --split $sp \
          --out "cl_${sys}_${rl}_${ch}_$sp.json" > /dev/null)
      done
    done
  done
  (cd "$work" && HALOMD_GPU_TIMING=1 "$halomd" run -c $sys.gro -p $sys.top -f $sys.mdp -o t_$sys --backend cuda \
    > /dev/null 2>&1)
done
python3 - "$work" "${COMMIT:-$(git rev-parse --short HEAD)}" << 'PY'
import datetime, glob, json, os, subprocess, sys
work, commit = sys.argv[1], sys.argv[2]
records = []
for f in sorted(glob.glob(f"{work}/cl_*.json")):
    r = json.load(open(f))
    sysname, rl, ch, sp = os.path.basename(f)[len("cl_"):-len(".json")].rsplit("_", 3)
    r.update(system=sysname, chunk=int(ch), split=int(sp), kernel="cluster_pairs")
    records.append(r)
for sysname in ("spce_9k", "spce_45k", "spce_203k"):
    r = json.load(open(f"{work}/t_{sysname}/run.json"))
    records.append({"system": sysname, "kernel": "halomd_atom_pairs", "rlist_nm": r.get("rlist_nm"),
                    "nonbonded_us": r["gpu_phase_us"]["nonbonded"], "ns_search_us": r["gpu_phase_us"]["ns_search"],
                    "ns_per_day_timed": r.get("ns_per_day")})
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                     text=True).stdout.strip().splitlines()[0]
out = {"name": "cluster_nb", "date": datetime.date.today().isoformat(), "commit": commit,
       "machine": {"gpu": gpu, "gpus": 1},
       "command": "bash bench/cluster_nb.sh", "records": records,
       "notes": "kernel_*_us: one force kernel over a host-built cluster-pair half list (bench/cluster_nb.cu), "
                "mean of 200 launches; halomd_atom_pairs: the nonbonded and search kernels of a "
                "HALOMD_GPU_TIMING=1 run (every step timed kernel by kernel)"}
json.dump(out, open("bench/results/cluster_nb.json", "w"), indent=1)
for r in records:
    if r["kernel"] == "cluster_pairs":
        print(f"{r['system']:10s} rlist {r['rlist_nm']:.3f} chunk {r['chunk']:2d} split {r['split']}: fixed "
              f"{r['kernel_fixed_atomics_us']:.1f} float {r['kernel_float_atomics_us']:.1f} skip "
              f"{r['kernel_fixed_skip_us']:.1f} us")
    else:
        print(f"{r['system']:10s} halomd atom pairs: nonbonded {r['nonbonded_us']:.1f} us, search {r['ns_search_us']:.1f} us")
PY
