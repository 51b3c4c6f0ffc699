#!/usr/bin/env python3
"""A CPU model of a cluster-pair list (GROMACS's nbnxm layout) for a water box, to size the change that would
replace the per-atom pair list of the CUDA executor (bench/NOTES.md, 2026-12-03 fourth session): atoms in
x-y columns about one cluster wide, sorted by z in each column and cut into clusters of CLUSTER atoms (the
last one of a column padded), bounding boxes, and every pair of clusters whose boxes come within rlist
(periodic). Prints the cluster pairs (half list, each pair once), the atom-pair slots they cover, the
atom pairs within rlist and within the cut-off among them (the kernel's useful work), and the same counts for
the per-atom list halomd builds now.
Usage: bench/cluster_model.py GRO [RLIST] [RC] [CLUSTER]   (e.g. a 45k box from `halomd genconf --nbox 2 2 2`)
"""
import sys

import numpy as np
from scipy.spatial import cKDTree


def read_gro(path):
    lines = open(path).read().splitlines()
    n = int(lines[1])
    x = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2:2 + n]])
    box = np.array([float(v) for v in lines[2 + n].split()[:3]])
    return x - np.floor(x / box) * box, box


def clusters(x, box, size):
    """Atom indices of each cluster (padded with -1) and the clusters' bounding boxes."""
    density = len(x) / box.prod()
    side = (size / density) ** (1.0 / 3.0)  # a cubic cluster
    nc = np.maximum(1, np.floor(box[:2] / side).astype(int))
    col = (np.minimum((x[:, 0] / box[0] * nc[0]).astype(int), nc[0] - 1) * nc[1] +
           np.minimum((x[:, 1] / box[1] * nc[1]).astype(int), nc[1] - 1))
    order = np.lexsort((x[:, 2], col))
    members, lo, hi = [], [], []
    starts = np.searchsorted(col[order], np.arange(nc[0] * nc[1] + 1))
    for c in range(nc[0] * nc[1]):
        atoms = order[starts[c]:starts[c + 1]]
        for k in range(0, len(atoms), size):
            a = atoms[k:k + size]
            members.append(np.pad(a, (0, size - len(a)), constant_values=-1))
            lo.append(x[a].min(axis=0))
            hi.append(x[a].max(axis=0))
    return np.array(members), np.array(lo), np.array(hi)


def main():
    gro = sys.argv[1]
    rlist = float(sys.argv[2]) if len(sys.argv) > 2 else 1.120131
    rc = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    x, box = read_gro(gro)
    n = len(x)
    members, lo, hi = clusters(x, box, size)
    nclu = len(members)
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    reach = rlist + 2 * np.linalg.norm(half, axis=1).max()
    tree = cKDTree(centre, boxsize=box)
    pairs = tree.query_pairs(reach, output_type="ndarray")
    pairs = np.concatenate([pairs, np.stack([np.arange(nclu)] * 2, axis=1)])  # and each with itself
    d = centre[pairs[:, 1]] - centre[pairs[:, 0]]
    d -= box * np.round(d / box)
    gap = np.maximum(0.0, np.abs(d) - half[pairs[:, 0]] - half[pairs[:, 1]])
    within = (gap ** 2).sum(axis=1) < rlist ** 2
    cp = pairs[within]
    # Atom pairs inside those cluster pairs (a cluster with itself: each pair once).
    slots = within_rlist = within_rc = 0
    for a, b in cp:
        ia, ib = members[a], members[b]
        ia, ib = ia[ia >= 0], ib[ib >= 0]
        dd = x[ia][:, None, :] - x[ib][None, :, :]
        dd -= box * np.round(dd / box)
        r2 = (dd ** 2).sum(axis=2)
        if a == b:
            iu = np.triu_indices(len(ia), 1)
            r2 = r2[iu]
            slots += size * (size - 1) // 2
        else:
            slots += size * size
        within_rlist += int((r2 < rlist ** 2).sum())
        within_rc += int((r2 < rc ** 2).sum())
    print(f"{gro}: {n} atoms, box {box}, rlist {rlist}, rc {rc}, clusters of {size}: {nclu} "
          f"({n / nclu:.2f} atoms each)")
    print(f"cluster pairs within rlist (half list): {len(cp):,} ({2 * len(cp) / nclu:.0f} per cluster, "
          f"both directions)")
    print(f"atom-pair slots: {slots:,}; pairs within rlist {within_rlist:,} ({within_rlist / slots:.1%}), "
          f"within rc {within_rc:,} ({within_rc / slots:.1%})")
    print(f"per-atom list now: {2 * within_rlist:,} entries (full list, each pair from both atoms), "
          f"{within_rc / within_rlist:.1%} of them within rc")
    print(f"cluster list / per-atom list: {len(cp) * 4 * 2 / (2 * within_rlist * 4):.3f} of the bytes "
          f"(one 8-byte entry per cluster pair), {slots / (2 * within_rlist):.2f}x the pair evaluations")


if __name__ == "__main__":
    main()
