#!/usr/bin/env python3
"""Reads an .xtc with MDAnalysis (topology from a .gro) and compares it with expected coordinates.

Usage: xtc_check.py file.gro file.xtc [--expected coords.txt] [--frames N] [--atol NM]

Prints the frame count, the atom count and the largest |x - expected| (nm) of the first frame; with
--expected holding k * natoms lines of "x y z" (nm) the first k frames are compared, otherwise the first
frame is compared with the .gro. Exits 1 when the frame count differs from --frames or a deviation exceeds
atol + 3e-7 |expected| (MDAnalysis decodes to float32 in Angstrom, which adds that relative rounding).
"""
import argparse
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gro")
    parser.add_argument("xtc")
    parser.add_argument("--expected", help="text file of x y z in nm, natoms lines per frame")
    parser.add_argument("--frames", type=int, help="expected number of frames")
    parser.add_argument("--atol", type=float, default=0.0005, help="absolute tolerance, nm")
    args = parser.parse_args()

    import MDAnalysis  # imported here so that --help works without it

    u = MDAnalysis.Universe(args.gro, args.xtc)
    natoms = u.atoms.n_atoms
    nframes = len(u.trajectory)
    print(f"frames {nframes}")
    print(f"atoms {natoms}")
    ok = True
    if args.frames is not None and nframes != args.frames:
        print(f"error: expected {args.frames} frames, MDAnalysis read {nframes}")
        ok = False

    if args.expected:
        expected = np.loadtxt(args.expected, ndmin=2).reshape(-1, natoms, 3)
    else:
        gro = MDAnalysis.Universe(args.gro)  # the .gro alone: its own positions, Angstrom -> nm
        expected = gro.atoms.positions[np.newaxis].astype(np.float64) / 10.0
    for k in range(min(len(expected), nframes)):
        ts = u.trajectory[k]
        x = ts.positions.astype(np.float64) / 10.0  # Angstrom -> nm
        dev = np.abs(x - expected[k])
        limit = args.atol + 3e-7 * np.abs(expected[k])
        if k == 0:
            print(f"max_dev_frame0_nm {dev.max():.3e}")
        bad = np.argwhere(dev > limit)
        if len(bad):
            a, d = bad[0]
            print(f"error: frame {k} atom {a + 1} dim {d}: {x[a, d]:.6f} vs expected {expected[k][a, d]:.6f}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
