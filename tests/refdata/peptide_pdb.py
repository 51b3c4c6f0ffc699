#!/usr/bin/env python3
"""Writes the heavy atoms of a short peptide as a PDB file for gmx pdb2gmx (which adds the hydrogens).

The chain is built from internal coordinates (the natural extension reference frame: each atom from the
three before it, a bond length, an angle and a dihedral), with textbook backbone geometry, a beta-strand
phi/psi and staggered side chains. It only needs to be a sensible start: tests/make_bonded_refdata.sh relaxes
it with GROMACS's steepest descent before any energy is taken.
Usage: peptide_pdb.py OUT.pdb [RESIDUE ...]   (default SER ALA PHE LYS GLU VAL THR ASN GLY)
"""
import math
import sys

import numpy as np


def place(a, b, c, bond, angle_deg, torsion_deg):
    """The atom d with |cd| = bond, angle b-c-d and dihedral a-b-c-d (degrees), from a, b, c."""
    angle, torsion = math.radians(angle_deg), math.radians(torsion_deg)
    bc = c - b
    bc /= np.linalg.norm(bc)
    n = np.cross(b - a, bc)
    n /= np.linalg.norm(n)
    m = np.cross(n, bc)
    d2 = np.array([-bond * math.cos(angle), bond * math.sin(angle) * math.cos(torsion),
                   bond * math.sin(angle) * math.sin(torsion)])
    return c + d2[0] * bc + d2[1] * m + d2[2] * n


# Side chains: (name, from three earlier atoms, bond (A), angle, dihedral), in building order.
SIDE_CHAINS = {
    "GLY": [],
    "ALA": [],
    "SER": [("OG", ("N", "CA", "CB"), 1.42, 111.0, 60.0)],
    "VAL": [("CG1", ("N", "CA", "CB"), 1.52, 110.5, 180.0), ("CG2", ("N", "CA", "CB"), 1.52, 110.5, -60.0)],
    "THR": [("OG1", ("N", "CA", "CB"), 1.43, 109.5, 60.0), ("CG2", ("N", "CA", "CB"), 1.52, 111.0, -60.0)],
    "LYS": [("CG", ("N", "CA", "CB"), 1.52, 114.0, 180.0), ("CD", ("CA", "CB", "CG"), 1.52, 111.5, 180.0),
            ("CE", ("CB", "CG", "CD"), 1.52, 111.5, 180.0), ("NZ", ("CG", "CD", "CE"), 1.49, 111.5, 180.0)],
    "GLU": [("CG", ("N", "CA", "CB"), 1.52, 114.0, 180.0), ("CD", ("CA", "CB", "CG"), 1.52, 113.0, 180.0),
            ("OE1", ("CB", "CG", "CD"), 1.25, 118.5, 0.0), ("OE2", ("CB", "CG", "CD"), 1.25, 118.5, 180.0)],
    "ASN": [("CG", ("N", "CA", "CB"), 1.52, 112.6, -60.0), ("OD1", ("CA", "CB", "CG"), 1.23, 120.8, -60.0),
            ("ND2", ("CA", "CB", "CG"), 1.33, 116.4, 120.0)],
    "PHE": [("CG", ("N", "CA", "CB"), 1.50, 114.0, -60.0), ("CD1", ("CA", "CB", "CG"), 1.39, 120.7, 90.0),
            ("CD2", ("CA", "CB", "CG"), 1.39, 120.7, -90.0), ("CE1", ("CB", "CG", "CD1"), 1.39, 120.0, 180.0),
            ("CE2", ("CB", "CG", "CD2"), 1.39, 120.0, 180.0), ("CZ", ("CG", "CD1", "CE1"), 1.39, 120.0, 0.0)],
}

PHI, PSI, OMEGA = -120.0, 130.0, 180.0


def build(sequence):
    atoms = []  # (residue index, residue name, atom name, xyz)
    # The first residue's N, CA, C in a plane; every later atom from internal coordinates.
    n = np.array([0.0, 1.458, 0.0])
    ca = np.array([0.0, 0.0, 0.0])
    c = place(np.array([1.0, 2.0, 0.0]), n, ca, 1.525, 111.2, -60.0)
    prev = None
    for i, res in enumerate(sequence):
        if prev is not None:
            pn, pca, pc = prev
            n = place(pn, pca, pc, 1.329, 116.2, PSI)
            ca = place(pca, pc, n, 1.458, 121.7, OMEGA)
            c = place(pc, n, ca, 1.525, 111.2, PHI)
        o = place(n, ca, c, 1.231, 120.5, PSI + 180.0)
        here = {"N": n, "CA": ca, "C": c, "O": o}
        if res != "GLY":
            here["CB"] = place(c, n, ca, 1.53, 110.5, -122.5)
        for name, (a, b, cc), bond, angle, dih in SIDE_CHAINS[res]:
            here[name] = place(here[a], here[b], here[cc], bond, angle, dih)
        for name in ["N", "CA", "C", "O"] + [k for k in here if k not in ("N", "CA", "C", "O")]:
            atoms.append((i + 1, res, name, here[name]))
        prev = (n, ca, c)
    return atoms


def main():
    out = sys.argv[1]
    sequence = sys.argv[2:] or ["SER", "ALA", "PHE", "LYS", "GLU", "VAL", "THR", "ASN", "GLY"]
    with open(out, "w") as f:
        f.write("REMARK   peptide heavy atoms by tests/refdata/peptide_pdb.py\n")
        for k, (resi, res, name, xyz) in enumerate(build(sequence)):
            f.write("ATOM  %5d %-4s %3s A%4d    %8.3f%8.3f%8.3f  1.00  0.00           %s\n"
                    % (k + 1, name if len(name) == 4 else " " + name, res, resi, xyz[0], xyz[1], xyz[2],
                       name[0]))
        f.write("TER\nEND\n")


if __name__ == "__main__":
    main()
