#!/usr/bin/env python3
"""A CPU model of the GPU pair search (src/cuda/pairsearch.cu) for predictions before a device run: the cell
grid, the sorted order and each atom's reachable ranges (column x-y pruning, z range per column) as the
kernels compute them, then counts that decide the search's and the non-bonded kernel's work:
  - candidates per atom, and the warp rounds of a warp-uniform search (spa search lanes per atom, the
    warp walking the union of its atoms' ranges, a round testing spa candidates of one range per atom);
  - image-shift changes per atom and the list entries and groups they cost, for the per-lane layout
    (candidates dealt to lanes, a marker per lane per change) and for the stream layout (accepted pairs
    dealt to lanes, tpa markers per change), with ranges in the kernels' order or grouped by shift.
Water only (exclusions = the atom's own molecule of three). Usage:
  bench/ns_model.py GRO TPA SPA [ATOMS_SAMPLED]     (e.g. a 45k box from `halomd genconf --nbox 2 2 2`)
"""
import math
import sys

import numpy as np


class Grid:
    def __init__(self, gro, rlist=1.120131, cells_per_rlist=2):
        lines = open(gro).read().splitlines()
        n = self.n = int(lines[1])
        x = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2:2 + n]])
        box = np.array([float(v) for v in lines[2 + n].split()[:3]])
        self.k = cells_per_rlist
        nc = self.nc = np.maximum(4, np.floor(box * cells_per_rlist / rlist).astype(int))
        self.cs = (box / nc).astype(np.float32)
        self.box = box.astype(np.float32)
        w = x - np.floor(x / box) * box
        c = np.clip((w * (nc / box)).astype(int), 0, nc - 1)
        cell = (c[:, 0] * nc[1] + c[:, 1]) * nc[2] + c[:, 2]
        order = np.lexsort((np.arange(n), cell))  # by cell, then atom index
        self.xs = w[order].astype(np.float32)
        self.cell = cell[order]
        self.mol = order // 3
        self.start = np.concatenate([[0], np.cumsum(np.bincount(cell, minlength=nc.prod()))])
        self.prune = np.float32(rlist + 1e-3)
        self.prune2 = self.prune * self.prune
        self.rlist2 = np.float32(rlist * rlist)

    def reach(self, s):
        nc, cs, k = self.nc, self.cs, self.k
        xi, c = self.xs[s], self.cell[s]
        cc = [c // (nc[1] * nc[2]), (c // nc[2]) % nc[1], c % nc[2]]
        lo = [max(cc[d] - k, math.floor((xi[d] - self.prune) / cs[d])) for d in range(3)]
        hi = [min(cc[d] + k, math.floor((xi[d] + self.prune) / cs[d])) for d in range(3)]
        return xi, lo, hi

    def zrange(self, reach, ux, uy):
        xi, lo, hi = reach
        if not (lo[0] <= ux <= hi[0] and lo[1] <= uy <= hi[1]):
            return None
        gx = max(0.0, ux * self.cs[0] - xi[0], xi[0] - (ux + 1) * self.cs[0])
        gy = max(0.0, uy * self.cs[1] - xi[1], xi[1] - (uy + 1) * self.cs[1])
        if gx * gx > self.prune2 or gx * gx + gy * gy > self.prune2:
            return None
        dz = math.sqrt(max(0.0, self.prune2 - gx * gx - gy * gy))
        return max(lo[2], math.floor((xi[2] - dz) / self.cs[2])), min(hi[2], math.floor((xi[2] + dz) / self.cs[2]))

    def segments(self, ux, uy, zlo, zhi):
        """(begin, end, shift code) of the sorted atoms of column (ux, uy), unwrapped z cells zlo..zhi."""
        nc = self.nc
        sx = -1 if ux < 0 else (1 if ux >= nc[0] else 0)
        sy = -1 if uy < 0 else (1 if uy >= nc[1] else 0)
        col = ((ux - sx * nc[0]) * nc[1] + (uy - sy * nc[1])) * nc[2]
        uz = zlo
        while uz <= zhi:
            sz = -1 if uz < 0 else (1 if uz >= nc[2] else 0)
            ue = min(zhi, -1) if sz < 0 else (min(zhi, nc[2] - 1) if sz == 0 else zhi)
            yield (self.start[col + uz - sz * nc[2]], self.start[col + ue - sz * nc[2] + 1],
                   (sx + 1) + 3 * (sy + 1) + 9 * (sz + 1))
            uz = ue + 1

    def ranges(self, s):
        r = self.reach(s)
        out = []
        for ux in range(r[1][0], r[2][0] + 1):
            for uy in range(r[1][1], r[2][1] + 1):
                z = self.zrange(r, ux, uy)
                if z:
                    out.extend(self.segments(ux, uy, *z))
        return out

    def accepted(self, s, b, e, code):
        shift = np.array([code % 3 - 1, (code // 3) % 3 - 1, code // 9 - 1], np.float32) * self.box
        d = (self.xs[s] - shift) - self.xs[b:e]
        return ((d * d).sum(1) < self.rlist2) & (self.mol[b:e] != self.mol[s])


def warp_rounds(g, spa, warps):
    apw = 32 // spa
    rounds = slots_own = 0
    for w in warps:
        reach = [g.reach(s) for s in range(w * apw, min(g.n, w * apw + apw))]
        for s in range(w * apw, min(g.n, w * apw + apw)):
            slots_own += sum(e - b for b, e, _ in g.ranges(s))
        for ux in range(min(r[1][0] for r in reach), max(r[2][0] for r in reach) + 1):
            for uy in range(min(r[1][1] for r in reach), max(r[2][1] for r in reach) + 1):
                zs = [z for z in (g.zrange(r, ux, uy) for r in reach) if z]
                if zs:
                    for b, e, _ in g.segments(ux, uy, min(z[0] for z in zs), max(z[1] for z in zs)):
                        rounds += -(-(e - b) // spa)
    return rounds, slots_own


def lists(g, tpa, atoms):
    out = {k: np.zeros(3) for k in ("per-lane", "stream", "stream, shifts grouped")}
    for s in atoms:
        acc = [(b, e, code, g.accepted(s, b, e, code)) for b, e, code in g.ranges(s)]
        # per-lane: candidate c goes to lane c % tpa, which writes a marker when its own shift changes
        entries, cur, cand = [0] * tpa, [13] * tpa, 0
        for b, e, code, a in acc:
            for lane in ((cand + np.nonzero(a)[0]) % tpa):
                entries[lane] += 1 + (cur[lane] != code)
                cur[lane] = code
            cand += e - b
        out["per-lane"] += [0, sum(entries), sum(-(-x // 8) for x in entries)]
        for name, seq in (("stream", acc), ("stream, shifts grouped", sorted(acc, key=lambda t: t[2]))):
            cur, changes, stream = 13, 0, 0
            for b, e, code, a in seq:
                na = int(a.sum())
                if na and code != cur:
                    changes, cur, stream = changes + 1, code, stream + tpa
                stream += na
            out[name] += [changes, stream, -(-stream // (8 * tpa)) * tpa]
    return {k: v / len(atoms) for k, v in out.items()}


def main():
    gro, tpa, spa = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    sample = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    g = Grid(gro)
    rng = np.random.default_rng(1)
    apw = 32 // spa
    nwarps = (g.n + apw - 1) // apw
    warps = rng.choice(nwarps, size=min(sample // apw + 1, nwarps), replace=False)
    rounds, own = warp_rounds(g, spa, warps)
    natoms = sum(min(g.n, w * apw + apw) - w * apw for w in warps)
    print(f"{gro}: {g.n} atoms, grid {[int(v) for v in g.nc]}, {g.n / g.nc.prod():.1f} atoms per cell")
    print(f"candidates per atom {own / natoms:.0f}; warp-uniform search, spa {spa}: {rounds / len(warps):.0f} rounds "
          f"per warp, {rounds * 32 / own:.2f} lane slots per candidate, {rounds / len(warps) * nwarps / 1e6:.2f} M "
          f"warp rounds in all")
    atoms = rng.choice(g.n, size=min(sample, g.n), replace=False)
    for name, (changes, entries, groups) in lists(g, tpa, atoms).items():
        shifts = f"{changes:.2f} shift changes, " if name != "per-lane" else ""
        print(f"tpa {tpa}, {name}: {shifts}list entries {entries:.0f}, groups {groups:.1f} per atom")


if __name__ == "__main__":
    main()
