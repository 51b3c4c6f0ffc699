#!/usr/bin/env bash
# Makes tests/data/vsiten: tests/data/martini's system with three [ virtual_sitesn ] sites added to each
# chain (as Martini 3's molecules place virtual beads): site 7 the centre of geometry of beads 1-3 (funct 1),
# site 8 the centre of mass of beads 4-6 (funct 2; beads 5 and 6 lighter, 54 and 36 u), site 9 the centre of
# weights 1, 2, 3 of beads 2, 4, 6 (funct 3); the sites carry LJ and site 9 half of the chain's charge, and are
# excluded from their chain's beads. conf.gro: martini's with the sites placed (python, from the beads),
# minimised and run 10 ps at 310 K by gmx_d;
# nve.mdp: martini's with continuation = no. reference.txt: per step gmx_d's LJ (SR), Coulomb (SR), potential, total energy and
# pressure over 40 NVE steps. Every number is read from GROMACS output. Needs GROMACS 2022 (gmx_d), python3.
# Usage: bash tests/make_vsiten_refdata.sh
set -euo pipefail
# shellcheck source=tests/refdata/common.sh
. "$(dirname "$0")/refdata/common.sh"
SRC=$TESTS/data/martini
OUT=$TESTS/data/vsiten
mkdir -p "$OUT"
python3 - "$SRC" "$OUT" <<'PY'
import sys
src, out = sys.argv[1], sys.argv[2]
top = open(src + "/topol.top").read()
top = top.replace("; A Martini-style coarse-grained test system (tests/make_martini_refdata.sh)",
                  "; tests/data/martini's system with [ virtual_sitesn ] (tests/make_vsiten_refdata.sh)")
top = top.replace("  Qa   72.0  0.000  A     0.47  5.0\n",
                  "  Qa   72.0  0.000  A     0.47  5.0\n  TC   0.0   0.000  V     0.25  0.5\n")
top = top.replace("  1   Qd   1     CHN     Q1   1    1.0\n", "  1   Qd   1     CHN     Q1   1    0.5\n")
top = top.replace("  5   C1   1     CHN     B5   5    0.0\n", "  5   C1   1     CHN     B5   5    0.0  54.0\n")
top = top.replace("  6   N0   1     CHN     B6   6    0.0\n",
                  "  6   N0   1     CHN     B6   6    0.0  36.0\n"
                  "  7   TC   1     CHN     V7   7    0.0   0.0\n"
                  "  8   TC   1     CHN     V8   8    0.0   0.0\n"
                  "  9   TC   1     CHN     V9   9    0.5   0.0\n")
sites = """
[ virtual_sitesn ]
; site funct atoms (funct 3: atom weight pairs)
  7 1 1 2 3
  8 2 4 5 6
  9 3 2 1.0 4 2.0 6 3.0

[ exclusions ]
  7 1 2 3 4 5 6 8 9
  8 1 2 3 4 5 6 9
  9 1 2 3 4 5 6
"""
anchor = "[ moleculetype ]\n  W    1\n"
assert top.count(anchor) == 1
top = top.replace(anchor, sites.lstrip("\n") + "\n" + anchor)
open(out + "/topol.top", "w").write(top)

# conf.gro: each chain's six beads, then its three sites built from them (molecules are whole there).
lines = open(src + "/conf.gro").read().splitlines()
n = int(lines[1])
atoms, box = lines[2:2 + n], lines[2 + n]
mass = [72.0, 72.0, 72.0, 72.0, 54.0, 36.0]
def xyz(l): return [float(l[20:28]), float(l[28:36]), float(l[36:44])]
def avg(pts, w):
    s = sum(w)
    return [sum(wk * p[d] for wk, p in zip(w, pts)) / s for d in range(3)]
res = []
for c in range(30):
    chain = atoms[6 * c: 6 * c + 6]
    x = [xyz(l) for l in chain]
    res.extend(chain)
    sites = [avg(x[0:3], [1, 1, 1]), avg(x[3:6], mass[3:6]), avg([x[1], x[3], x[5]], [1, 2, 3])]
    for k, p in enumerate(sites):
        res.append("%5d%-5s%5s%5d%8.3f%8.3f%8.3f%8.4f%8.4f%8.4f" % (c + 1, "CHN", "V%d" % (7 + k), 0, p[0], p[1], p[2], 0, 0, 0))
res.extend(atoms[180:])
with open(out + "/conf.gro", "w") as f:
    f.write("martini chains with virtual sites\n%5d\n" % len(res))
    for k, l in enumerate(res):
        f.write(l[:15] + "%5d" % ((k + 1) % 100000) + l[20:] + "\n")
    f.write(box + "\n")
PY
# continuation = no: both codes build the sites at the start (from the .gro's three decimals they are ~1e-3 nm
# off, which GROMACS's first step would otherwise use for its pair forces).
sed 's/^continuation = yes/continuation = no/' "$SRC/nve.mdp" > "$OUT/nve.mdp"
sed 's/^continuation = yes/continuation = no/' "$SRC/step0.mdp" > "$OUT/step0.mdp"
# The sites' LJ against what lies near them: minimised, then 10 ps at 310 K (the martini script's settings).
sed -e '/^nsteps/d;/^continuation/d;/^nstcalcenergy/d;/^nstenergy/d' "$SRC/step0.mdp" > "$WORK/eq.mdp"
printf 'nsteps = 500\ngen-vel = yes\ngen-temp = 310\ngen-seed = 9\n' >> "$WORK/eq.mdp"
sed -e '/^integrator/d;/^dt/d;/^nsteps/d;/^continuation/d;/^tc/d;/^tau/d;/^ref/d' "$SRC/step0.mdp" > "$WORK/em.mdp"
printf 'integrator = steep\nnsteps = 1000\nemtol = 100\n' >> "$WORK/em.mdp"
run em_grompp "$GMXD" grompp -f em.mdp -c "$OUT/conf.gro" -p "$OUT/topol.top" -o em.tpr
run em "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s em.tpr -deffnm em
run eq_grompp "$GMXD" grompp -f eq.mdp -c em.gro -p "$OUT/topol.top" -o eq.tpr
run eq "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s eq.tpr -deffnm eq
cp "$WORK/eq.gro" "$OUT/conf.gro"
run grompp "$GMXD" grompp -f "$OUT/nve.mdp" -c "$OUT/conf.gro" -p "$OUT/topol.top" -o nve.tpr
run mdrun "$GMXD" mdrun -ntmpi 1 -ntomp 2 -pin off -s nve.tpr -deffnm nve
run energy sh -c "printf '%s\n' 'LJ-(SR)' 'Coulomb-(SR)' Potential Total-Energy Pressure '' | '$GMXD' energy -f nve.edr -o nve.xvg"
{
  echo "# step lj_sr coulomb_sr potential total pressure (kJ/mol, bar): gmx_d $version, nve.mdp (40 steps of NVE);"
  echo "# written by tests/make_vsiten_refdata.sh"
  python3 "$TESTS/refdata/refdata.py" columns "$WORK/nve.xvg" "LJ (SR)" "Coulomb (SR)" Potential "Total Energy" Pressure
} > "$OUT/reference.txt"
head -4 "$OUT/reference.txt"
