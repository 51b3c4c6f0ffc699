#!/usr/bin/env python3
"""The timeline of the fused nvshmem halo exchange over the PEs of one run (a diagnostic).

Reads PREFIX_pe<N>.txt written by a run with HALOMD_HALO_STAMPS=PREFIX (one row per step: GPU global-timer
stamps in ns, the same clock for every process on a GPU; the columns are those of kStamps in
src/comm/nvshmem/nvshmem_halo_kernels.h) and prints, per PE, the median time of each event after the
earliest x-exchange entry of that step over all PEs, for the regular steps (those whose period is within
20% of the median period).
Usage: bench/halo_stamps.py PREFIX [PULSES]
"""
import glob
import statistics
import sys

prefix = sys.argv[1]
pulses = int(sys.argv[2]) if len(sys.argv) > 2 else 2
MAXP = 3
PER_DIR = 2 + 2 * MAXP
files = sorted(glob.glob(prefix + "_pe*.txt"), key=lambda f: int(f.rsplit("_pe", 1)[1][:-4]))
pes = [[list(map(int, line.split())) for line in open(f)] for f in files]
if not pes:
    sys.exit(f"no {prefix}_pe*.txt")
rows = [r for r in range(len(pes[0])) if all(pe[r][0] > 0 and pe[r][PER_DIR] > 0 for pe in pes)]
rows.sort(key=lambda r: min(pe[r][0] for pe in pes))
starts = [min(pe[r][0] for pe in pes) for r in rows]
periods = [b - a for a, b in zip(starts, starts[1:])]
med = statistics.median(periods)
regular = [i for i, p in enumerate(periods) if abs(p - med) < 0.2 * med]
print(f"{len(files)} PEs, {len(rows)} steps stamped, median step {med / 1e3:.1f} us, {len(regular)} regular")

names = ["x entry"]
cols = [0]
for k in range(pulses):
    names += [f"x sent {k}", f"x arrived {k}"]
    cols += [1 + 2 * k, 2 + 2 * k]
names += ["x exit", "f entry"]
cols += [PER_DIR - 1, PER_DIR]
for k in reversed(range(pulses)):
    names += [f"f sent {k}", f"f arrived {k}"]
    cols += [PER_DIR + 1 + 2 * k, PER_DIR + 2 + 2 * k]
names += ["f exit", "next x entry"]
cols += [2 * PER_DIR - 1, None]

print("event (us after the step's first x entry) " + " ".join(f"{'pe' + str(p):>8s}" for p in range(len(pes))))
for name, c in zip(names, cols):
    vals = []
    for pe in pes:
        v = []
        for i in regular:
            r, t0 = rows[i], starts[i]
            t = pe[rows[i + 1]][0] if c is None else pe[r][c]
            if t > 0:
                v.append((t - t0) / 1e3)
        vals.append(statistics.median(v) if v else float("nan"))
    print(f"{name:42s} " + " ".join(f"{x:8.1f}" for x in vals))
