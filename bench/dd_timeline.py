#!/usr/bin/env python3
"""Where the GPU's time goes in a run of several domains sharing one GPU, from Nsight Systems traces.

Reads one nsys sqlite export per rank (bench/dd_timeline.sh writes them), puts every rank's kernels on one time
axis (nsys converts GPU times to the host's clock, which the processes share), cuts the run into rank 0's steps
(one update_kernel each) and prints, per kind of step (regular: no search kernel on rank 0; search: a
ns_* kernel), the median wall time, the time at least one kernel of any rank runs, the time at least one
kernel other than the halo exchange kernels runs (those spin on a signal while they wait, so they show up as
busy), and the kernels' summed time by name over all ranks. A diagnostic for bench/NOTES.md.
Usage: python3 bench/dd_timeline.py rank0.sqlite rank1.sqlite ...
"""
import collections
import sqlite3
import statistics
import sys

WAITING = ("exchange_x_kernel", "exchange_f_kernel", "reduce_kernel")


def kernels(path):
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT k.start, k.end, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN StringIds s ON s.id = k.shortName ORDER BY k.start").fetchall()
    return [(a, b, name) for a, b, name in rows]


def union_length(intervals, lo, hi):
    total, cur_a, cur_b = 0, None, None
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in intervals if b > lo and a < hi):
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def main(paths):
    ranks = [kernels(p) for p in paths]
    everything = sorted(k for r in ranks for k in r)
    ends = [b for a, b, name in ranks[0] if name.startswith("update_kernel")]
    # Leave out the first and last fifth of the run (start, graph records, the end's output).
    cut = len(ends) // 5
    ends = ends[cut:len(ends) - cut]
    kinds = collections.defaultdict(lambda: {"wall": [], "busy": [], "work": [], "names": collections.Counter(), "n": 0})
    j0 = 0
    for lo, hi in zip(ends, ends[1:]):
        while j0 < len(everything) and everything[j0][1] <= lo:
            j0 += 1
        inside = []
        j = j0
        while j < len(everything) and everything[j][0] < hi:
            inside.append(everything[j])
            j += 1
        rank0 = [k for k in ranks[0] if lo < k[1] and k[0] < hi]
        kind = "search" if any(n.startswith("ns_") for _, _, n in rank0) else "regular"
        d = kinds[kind]
        d["n"] += 1
        d["wall"].append((hi - lo) / 1e3)
        d["busy"].append(union_length([(a, b) for a, b, _ in inside], lo, hi) / 1e3)
        d["work"].append(union_length([(a, b) for a, b, n in inside if not n.startswith(WAITING)], lo, hi) / 1e3)
        for a, b, n in inside:
            d["names"][n] += (min(b, hi) - max(a, lo)) / 1e3
    for kind, d in sorted(kinds.items()):
        print(f"{kind} steps: {d['n']}, median wall {statistics.median(d['wall']):.1f} us, any kernel "
              f"{statistics.median(d['busy']):.1f} us, a kernel other than the exchanges "
              f"{statistics.median(d['work']):.1f} us")
        for n, t in d["names"].most_common(14):
            print(f"    {n:40s} {t / d['n']:8.1f} us per step (all ranks)")


if __name__ == "__main__":
    main(sys.argv[1:])
