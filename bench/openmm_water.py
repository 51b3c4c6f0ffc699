#!/usr/bin/env python3
"""OpenMM's CUDA platform on the same SPC/E water (or solvated peptide) as halomd (bench/gpu_single.sh runs it in
the same call).

Reads the .gro/.top with GromacsGroFile/GromacsTopFile and sets OpenMM's closest equivalent of the
benchmark settings of ../shared/BENCH.md:
  - reaction field (CutoffPeriodic), cut-off 1.0 nm, reactionFieldDielectric 1e10: OpenMM has no
    epsilon-rf = infinity, but its k_rf and c_rf with this value equal GROMACS's for epsilon-rf = 0; or, with
    --pme-grid and --ewald-alpha, PME with halomd's grid and splitting coefficient (order 5 in OpenMM, 4 in
    GROMACS's default: OpenMM's order is fixed);
  - Lennard-Jones with a plain cut-off at 1.0 nm (OpenMM has no potential-shift; forces are the same,
    energies differ by a constant per pair), dispersion correction on;
  - rigid water (SETTLE), dt 2 fs, leap-frog (VerletIntegrator) with an Andersen thermostat at 300 K,
    10/ps (OpenMM has no v-rescale), centre-of-mass motion removal every 100 steps;
  - precision mixed (float forces, double integration: halomd's choice); OpenMM picks its own pair-list
    padding and rebuild rule.
Energies are read back every 1000 steps (nstenergy). Prints one JSON object.
"""
import argparse
import json
import sys
import time

import openmm as mm
from openmm import app, unit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gro", required=True)
    ap.add_argument("--top", required=True)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--warmup", type=int, default=2000)
    ap.add_argument("--precision", default="mixed")
    # PME with halomd's (GROMACS's) splitting coefficient and grid instead of reaction field.
    ap.add_argument("--pme-grid", type=int, nargs=3, metavar=("NX", "NY", "NZ"))
    ap.add_argument("--ewald-alpha", type=float, help="nm^-1 (GROMACS's beta)")
    # constraints = h-bonds (LINCS in halomd) for a protein: OpenMM's HBonds.
    ap.add_argument("--constraints", choices=["none", "hbonds"], default="none")
    # NPT at 1 bar: OpenMM's MonteCarloBarostat (its default: a volume move every 25 steps), the peer of
    # halomd's C-rescale (OpenMM has no stochastic cell rescaling).
    ap.add_argument("--barostat", action="store_true")
    args = ap.parse_args()
    pme = args.pme_grid is not None

    gro = app.GromacsGroFile(args.gro)
    top = app.GromacsTopFile(args.top, periodicBoxVectors=gro.getPeriodicBoxVectors())
    system = top.createSystem(nonbondedMethod=app.PME if pme else app.CutoffPeriodic,
                              nonbondedCutoff=1.0 * unit.nanometer, rigidWater=True, removeCMMotion=True,
                              constraints=app.HBonds if args.constraints == "hbonds" else None,
                              useDispersionCorrection=True)
    for force in system.getForces():
        if isinstance(force, mm.NonbondedForce):
            if pme:
                force.setPMEParameters(args.ewald_alpha, *args.pme_grid)
            else:
                force.setReactionFieldDielectric(1e10)
            force.setUseSwitchingFunction(False)
        if isinstance(force, mm.CMMotionRemover):
            force.setFrequency(100)
    system.addForce(mm.AndersenThermostat(300 * unit.kelvin, 10 / unit.picosecond))
    if args.barostat:
        system.addForce(mm.MonteCarloBarostat(1 * unit.bar, 300 * unit.kelvin, 25))
    dt_ps = 0.002
    integrator = mm.VerletIntegrator(dt_ps * unit.picoseconds)
    try:
        platform = mm.Platform.getPlatformByName("CUDA")
    except Exception:
        print("OpenMM plugin load failures:", mm.Platform.getPluginLoadFailures(), file=sys.stderr)
        raise
    context = mm.Context(system, integrator, platform, {"Precision": args.precision, "DeviceIndex": "0"})
    context.setPositions(gro.positions)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)

    def run(steps):
        done = 0
        while done < steps:
            n = min(1000, steps - done)
            integrator.step(n)
            done += n
            context.getState(getEnergy=True)  # as nstenergy 1000: one read-back per 1000 steps

    run(args.warmup)  # kernel compilation, first pair lists
    t0 = time.perf_counter()
    run(args.steps)
    wall = time.perf_counter() - t0
    state = context.getState(getEnergy=True)
    us_per_step = 1e6 * wall / args.steps
    print(json.dumps({
        "engine": "openmm", "version": mm.Platform.getOpenMMVersion(), "backend": "cuda",
        "precision": args.precision, "electrostatics": "PME" if pme else "reaction field",
        "constraints": args.constraints,
        "barostat": "MonteCarloBarostat(1 bar, 300 K, every 25 steps)" if args.barostat else None,
        "pme_grid": args.pme_grid, "ewald_alpha_nm": args.ewald_alpha, "integrator": "VerletIntegrator + AndersenThermostat(300 K, 10/ps)",
        "atoms": system.getNumParticles(), "steps": args.steps, "warmup_steps": args.warmup, "dt_ps": dt_ps,
        "wall_s": wall, "us_per_step": us_per_step, "ns_per_day": dt_ps * 1e-3 * 86400.0 / (us_per_step * 1e-6),
        "potential_kj_mol": state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole),
        "cuda_device": device_name(platform, context),
    }))


def device_name(platform, context):
    try:
        return platform.getPropertyValue(context, "DeviceName")
    except Exception:  # not every OpenMM version has the property
        return ""


if __name__ == "__main__":
    main()
