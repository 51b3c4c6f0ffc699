#!/usr/bin/env python3
"""Helpers of tests/make_refdata.sh (standard library only).

Subcommands:
  strip-top PP_TOP OUT_TOP       make a self-contained topology from `gmx grompp -pp` output
  energy GMX EDR OUT_XVG TERM..  run `GMX energy` on the terms of TERM.. present in EDR (others skipped)
  same-energies A.xvg B.xvg      fail unless two rerun energy files agree exactly
  columns XVG TERM..             print "row value.." per frame, the values of the named legends in order
  first-frame XVG CASE           print "CASE term value" for every legend of the first frame (spaces as _)
  reference ...                  write reference.txt (and nve_energy.csv) from GROMACS output

Every number written by `reference` is read from GROMACS output files (xvg from `gmx energy`, .gro, .top,
md.log, .mdp); nothing is typed in here.
"""

import argparse
import re
import subprocess
import sys

DIRECTIVE = re.compile(r"^\s*\[\s*([A-Za-z_]+)\s*\]")
# Directives a kept molecule type may have without needing any *types directive for its parameters.
SELF_CONTAINED_MOL_DIRECTIVES = {"moleculetype", "atoms", "settles", "exclusions"}


def fail(msg):
    sys.stderr.write("refdata.py: " + msg + "\n")
    sys.exit(1)


def data_fields(line):
    """Fields of a topology line without its ; comment, or [] for comment/blank lines."""
    return line.split(";", 1)[0].split()


# ----------------------------------------------------------------------------------------------- strip-top
def split_sections(lines):
    """[(directive or None, [lines])] in file order; the directive line is the first line of its section."""
    sections = [(None, [])]
    for line in lines:
        if line.lstrip().startswith("#"):
            fail("preprocessor line left in -pp output: " + line.strip())
        m = DIRECTIVE.match(line)
        if m:
            sections.append((m.group(1).lower(), [line]))
        else:
            sections[-1][1].append(line)
    return sections


def strip_top(pp_path, out_path, header):
    with open(pp_path) as f:
        lines = f.read().splitlines()
    sections = split_sections(lines)

    defaults, atomtypes, nonbond, system, molecules = [], [], [], [], []
    moltypes = {}  # name -> list of (directive, lines)
    order = []
    current_mol = None
    for name, body in sections:
        if name is None:
            continue  # preamble: force-field comments
        if name == "moleculetype":
            fields = [data_fields(l) for l in body[1:] if data_fields(l)]
            current_mol = fields[0][0]
            moltypes[current_mol] = [(name, body)]
            order.append(current_mol)
        elif name in ("system", "molecules"):
            current_mol = None
            (system if name == "system" else molecules).append(body)
        elif name == "defaults":
            defaults.append(body)
        elif name == "atomtypes":
            atomtypes.append(body)
        elif name == "nonbond_params":
            nonbond.append(body)
        elif name.endswith("types"):
            continue  # bondtypes, angletypes, pairtypes, ...: not needed by the kept molecules
        elif current_mol is not None:
            moltypes[current_mol].append((name, body))
        else:
            fail("unexpected directive [ %s ] outside a molecule type" % name)

    if len(defaults) != 1 or len(system) != 1 or len(molecules) != 1:
        fail("expected one [ defaults ], [ system ] and [ molecules ] in " + pp_path)
    used_mols = []
    for l in molecules[0][1:]:
        f = data_fields(l)
        if f and f[0] not in used_mols:
            used_mols.append(f[0])
    used_types = set()
    for mol in used_mols:
        if mol not in moltypes:
            fail("molecule %s of [ molecules ] has no [ moleculetype ]" % mol)
        for name, body in moltypes[mol]:
            if name not in SELF_CONTAINED_MOL_DIRECTIVES:
                fail("molecule %s has [ %s ], which may need parameters from *types directives; "
                     "extend strip-top before using it" % (mol, name))
            if name == "atoms":
                for l in body[1:]:
                    f = data_fields(l)
                    if f:
                        used_types.add(f[1])
                        if len(f) >= 9:
                            used_types.add(f[8])  # typeB

    def filtered(body, keep):
        """The directive line, its leading comments, and the data lines that pass keep()."""
        out = [body[0]]
        seen_data = False
        for l in body[1:]:
            f = data_fields(l)
            if f:
                seen_data = True
                if keep(f):
                    out.append(l)
            elif not seen_data:
                out.append(l)
        return out

    found_types = set()
    out = [";"] + ["; " + h for h in header] + [";", ""]
    out += defaults[0]
    for body in atomtypes:
        body = filtered(body, lambda f: f[0] in used_types)
        found_types.update(data_fields(l)[0] for l in body[1:] if data_fields(l))
        out += body
    missing = used_types - found_types
    if missing:
        fail("atom types without [ atomtypes ] line: " + " ".join(sorted(missing)))
    for body in nonbond:
        out += filtered(body, lambda f: f[0] in used_types and f[1] in used_types)
    for mol in order:
        if mol in used_mols:
            for _, body in moltypes[mol]:
                out += body
    out += system[0] + molecules[0]

    # tidy: strip trailing blanks, collapse blank runs, blank line before every directive
    tidy = []
    for l in out:
        l = l.rstrip()
        if DIRECTIVE.match(l):
            l = l.strip()
            if tidy and tidy[-1] != "":
                tidy.append("")
        if l == "" and tidy and tidy[-1] == "":
            continue
        tidy.append(l)
    while tidy and tidy[-1] == "":
        tidy.pop()
    with open(out_path, "w") as f:
        f.write("\n".join(tidy) + "\n")


# ----------------------------------------------------------------------------------------------- energy
def edr_terms(gmx, edr):
    out = subprocess.run([gmx, "dump", "-e", edr], capture_output=True, text=True, check=True).stdout
    terms = []
    in_list = False
    for line in out.splitlines():
        if line.startswith("energy components:"):
            in_list = True
            continue
        if in_list:
            m = re.match(r"^\s*(\d+)\s+(.*?)\s{2,}\(.*\)\s*$", line)
            if not m:
                break
            terms.append(m.group(2).strip())
    if not terms:
        fail("no energy terms found by `%s dump -e %s`" % (gmx, edr))
    return terms


def energy(gmx, edr, xvg, wanted):
    terms = edr_terms(gmx, edr)
    picks = [str(terms.index(t) + 1) for t in wanted if t in terms]
    skipped = [t for t in wanted if t not in terms]
    if skipped:
        sys.stderr.write("refdata.py: %s has no term %s (skipped)\n" % (edr, ", ".join(repr(s) for s in skipped)))
    p = subprocess.run([gmx, "energy", "-f", edr, "-o", xvg], input="\n".join(picks) + "\n\n",
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        fail("%s energy failed on %s" % (gmx, edr))
    got = read_xvg(xvg)
    for t in wanted:
        if t in terms and t not in got:
            fail("term %r missing from %s (legends: %s)" % (t, xvg, list(got)))


def read_xvg(path):
    """{legend: [values]} plus 'time' (legends are the term names of the .edr, e.g. 'LJ (SR)', 'Pres. DC')."""
    legends, rows = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            if line.startswith("@"):
                m = re.match(r'^@\s+s(\d+)\s+legend\s+"(.*)"', line)
                if m:
                    legends.append(m.group(2))
                continue
            if line.strip():
                rows.append([float(x) for x in line.split()])
    if not rows:
        fail("no data in " + path)
    cols = {"time": [r[0] for r in rows]}
    for i, name in enumerate(legends):
        cols[name] = [r[i + 1] for r in rows]
    return cols


def columns(xvg, names):
    cols = read_xvg(xvg)
    for name in names:
        if name not in cols:
            fail("term %r missing from %s (legends: %s)" % (name, xvg, list(cols)))
    for row in range(len(cols["time"])):
        print(row, *(repr(cols[name][row]) for name in names))


def first_frame(xvg, case):
    for name, values in read_xvg(xvg).items():
        if name != "time":
            print(case, name.replace(" ", "_"), repr(values[0]))


def same_energies(a, b):
    ea, eb = read_xvg(a), read_xvg(b)
    for k in ea:
        if ea[k] != eb.get(k):
            fail("%s differs between %s and %s: %s vs %s" % (k, a, b, ea[k], eb.get(k)))
    print("identical energies: %s" % ", ".join(k for k in ea if k != "time"))


# ----------------------------------------------------------------------------------------------- reference
def read_mdp(path):
    opts = {}
    with open(path) as f:
        for line in f:
            line = line.split(";", 1)[0]
            if "=" in line:
                k, v = line.split("=", 1)
                opts[k.strip().lower().replace("_", "-")] = v.strip()
    return opts


def read_gro(path):
    with open(path) as f:
        lines = f.read().splitlines()
    natoms = int(lines[1])
    box = [float(x) for x in lines[2 + natoms].split()]
    if len(box) == 9 and any(box[3:]):
        fail("triclinic box in " + path)
    return natoms, box[:3]


def read_molecules(top):
    mols, section = [], None
    with open(top) as f:
        for line in f:
            m = DIRECTIVE.match(line)
            if m:
                section = m.group(1).lower()
                continue
            fld = data_fields(line)
            if section == "molecules" and fld:
                mols.append((fld[0], int(fld[1])))
    return mols


def read_nrdf(log):
    with open(log) as f:
        m = re.search(r"^\s*nrdf:\s+(.*)$", f.read(), re.M)
    if not m:
        fail("no nrdf line in " + log)
    return sum(float(x) for x in m.group(1).split())


def at_time0(cols, name, path):
    if name not in cols:
        fail("%r not in %s" % (name, path))
    if cols["time"][0] != 0.0:
        fail("first frame of %s is not t = 0" % path)
    return cols[name][0]


def lsq_slope(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / sxx


def mean(v):
    return sum(v) / len(v)


def reference(args):
    out = []  # (key, value)
    checks = []
    rr = read_xvg(args.rerun)
    s0 = read_xvg(args.step0)
    for key, term in (("lj_sr", "LJ (SR)"), ("coulomb_sr", "Coulomb (SR)"), ("disp_corr", "Disper. corr."),
                      ("potential", "Potential")):
        out.append((key, at_time0(rr, term, args.rerun)))
    for key, term in (("potential0", "Potential"), ("kinetic0", "Kinetic En."), ("temperature0", "Temperature"),
                      ("pressure0", "Pressure"), ("pres_dc0", "Pres. DC"), ("constr_rmsd0", "Constr. rmsd"),
                      ("vir_xx0", "Vir-XX"), ("vir_yy0", "Vir-YY"), ("vir_zz0", "Vir-ZZ")):
        if term in s0:
            out.append((key, at_time0(s0, term, args.step0)))
    pot, pot0 = dict(out)["potential"], dict(out)["potential0"]
    checks.append("rerun potential vs nsteps-0 potential0: relative difference %.3g"
                  % (abs(pot - pot0) / abs(pot)))

    if args.nve:
        nve = read_xvg(args.nve)
        mdp = read_mdp(args.nve_mdp)
        t = nve["time"]
        nsteps, dt = int(mdp["nsteps"]), float(mdp["dt"])
        nframes = nsteps // int(mdp["nstenergy"]) + 1
        if len(t) != nframes:
            fail("%s has %d frames, expected %d" % (args.nve, len(t), nframes))
        if "Conserved En." in nve:
            conserved = nve["Conserved En."]
        else:
            # GROMACS writes no "Conserved En." term when nothing (thermostat, barostat) adds to it: it is then
            # the total energy.
            conserved = nve["Total Energy"]
            checks.append('no "Conserved En." in the NVE energy file (tcoupl no): nve_conserved_drift_per_ps '
                          'is the drift of "Total Energy"')
        out += [("nve_total_mean", mean(nve["Total Energy"])),
                ("nve_total_drift_per_ps", lsq_slope(t, nve["Total Energy"])),
                ("nve_conserved_drift_per_ps", lsq_slope(t, conserved)),
                ("nve_total_drift_per_ps_from_step10", lsq_slope(t[10:], nve["Total Energy"][10:])),
                ("nve_temperature_mean", mean(nve["Temperature"])),
                ("nve_potential_mean", mean(nve["Potential"])),
                ("nve_pressure_mean", mean(nve["Pressure"])),
                ("nve_steps", nsteps), ("dt", dt)]
        d = dict(out)
        checks.append("NVE step 0 vs nsteps-0 run: kinetic %.3g, potential %.3g, pressure %.3g (abs. diff.)"
                      % (abs(nve["Kinetic En."][0] - d["kinetic0"]), abs(nve["Potential"][0] - d["potential0"]),
                         abs(nve["Pressure"][0] - d["pressure0"])))
        with open(args.csv, "w") as f:
            f.write("time,total,potential,kinetic,temperature,pressure\n")
            for i in range(len(t)):
                f.write("%.10g,%.12g,%.12g,%.12g,%.12g,%.12g\n" % (
                    t[i], nve["Total Energy"][i], nve["Potential"][i], nve["Kinetic En."][i],
                    nve["Temperature"][i], nve["Pressure"][i]))

    natoms, box = read_gro(args.gro)
    mols = read_molecules(args.top)
    nmol = sum(n for _, n in mols)
    ndf = read_nrdf(args.log)
    out += [("atoms", natoms), ("molecules", nmol), ("box_x", box[0]), ("box_y", box[1]), ("box_z", box[2]),
            ("ndf", ndf)]
    if args.water:
        checks.append("ndf %g, 6*nmol-3 = %d" % (ndf, 6 * nmol - 3))
        d = dict(out)
        checks.append("potential per molecule %.4f kJ/mol" % (d["potential"] / nmol))

    with open(args.header) as f:
        header = [l.rstrip("\n") for l in f]
    with open(args.out, "w") as f:
        for l in header:
            f.write(("# " + l).rstrip() + "\n")
        for c in checks:
            f.write("# check: " + c + "\n")
        for k, v in out:
            if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and k in ("ndf",)):
                f.write("%s %d\n" % (k, int(v)))
            else:
                f.write("%s %.12g\n" % (k, v))
    for c in checks:
        print("  check: " + c)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("strip-top")
    p.add_argument("pp_top")
    p.add_argument("out_top")
    p.add_argument("--header", action="append", default=[])
    p = sub.add_parser("energy")
    p.add_argument("gmx")
    p.add_argument("edr")
    p.add_argument("xvg")
    p.add_argument("terms", nargs="+")
    p = sub.add_parser("same-energies")
    p.add_argument("a")
    p.add_argument("b")
    p = sub.add_parser("columns")
    p.add_argument("xvg")
    p.add_argument("names", nargs="+")
    p = sub.add_parser("first-frame")
    p.add_argument("xvg")
    p.add_argument("case")
    p = sub.add_parser("reference")
    for a in ("--rerun", "--step0", "--gro", "--top", "--log", "--header", "--out"):
        p.add_argument(a, required=True)
    p.add_argument("--nve")
    p.add_argument("--nve-mdp")
    p.add_argument("--csv")
    p.add_argument("--water", action="store_true")
    args = ap.parse_args()
    if args.cmd == "strip-top":
        strip_top(args.pp_top, args.out_top, args.header)
    elif args.cmd == "energy":
        energy(args.gmx, args.edr, args.xvg, args.terms)
    elif args.cmd == "same-energies":
        same_energies(args.a, args.b)
    elif args.cmd == "columns":
        columns(args.xvg, args.names)
    elif args.cmd == "first-frame":
        first_frame(args.xvg, args.case)
    else:
        reference(args)


if __name__ == "__main__":
    main()
