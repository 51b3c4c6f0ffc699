#!/usr/bin/env python3
"""Collects bench/gpu_single.sh's runs into bench/results/gpu_single.json (../shared/BENCH.md format) and
bench/results/gpu_single.png (ns/day against atoms). Arguments: WORK COMMIT OUTNAME NAME|STEPS|COMMAND|KIND...,
KIND: atom or cluster (a halomd run with that pair list, its run.json under WORK/h_NAME[_cluster]) or openmm
(WORK/o_NAME.json)."""
import datetime
import json
import os
import subprocess
import sys


def machine():
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True).stdout.strip().splitlines()[0]
        name, driver = [s.strip() for s in q.split(",")]
    except Exception:
        name, driver = "unknown GPU", "?"
    return f"{name}, driver {driver}, {os.cpu_count()} cores"


def drift_per_atom(csv_path, atoms):
    """Least-squares slope of the conserved energy against time, kJ/mol/ps per atom."""
    lines = open(csv_path).read().split("\n")
    head = lines[0].split(",")
    it, ic = head.index("time_ps"), head.index("conserved")
    rows = [l.split(",") for l in lines[1:] if l]
    t = [float(r[it]) for r in rows]
    c = [float(r[ic]) for r in rows]
    n = len(t)
    if n < 2:
        return 0.0
    mt, mc = sum(t) / n, sum(c) / n
    sxx = sum((a - mt) ** 2 for a in t)
    return sum((a - mt) * (b - mc) for a, b in zip(t, c)) / sxx / atoms


def main():
    work, commit, outname, items = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    records, ratios, list_ratios, by_list = [], {}, {}, {}
    for item in items:
        name, steps, cmd, kind = item.split("|")
        if kind == "openmm":
            o = json.load(open(f"{work}/o_{name}.json"))
            if o:
                o.update({"system": name, "transport": "none", "gpus": 1, "ranks": 1, "domains": 1,
                          "command": cmd + "  (bench/openmm_water.py)"})
                records.append(o)
                if (name, "atom") in by_list:
                    ratios[name] = by_list[(name, "atom")] / o["ns_per_day"]
            continue
        tag = name if kind == "atom" else f"{name}_{kind}"
        hcmd = cmd
        if not os.path.exists(f"{work}/h_{tag}/run.json"):
            print("no halomd result for", tag)
            continue
        run = json.load(open(f"{work}/h_{tag}/run.json"))
        timed_path = f"{work}/t_{tag}/run.json"
        timed = json.load(open(timed_path)) if os.path.exists(timed_path) else {}
        atoms = run["atoms"]
        us = run["dt_ps"] * 1e-3 * 86400.0 / run["ns_per_day"] * 1e6  # wall time per step, steady state
        h = {
            "engine": "halomd", "version": run["version"], "backend": "cuda", "transport": "none",
            "system": name, "atoms": atoms, "gpus": 1, "ranks": 1, "domains": 1, "dd": [1, 1, 1],
            "steps": int(steps), "timed_steps": run["last_step"] + 1 - run["first_step"] - run["nstlist"],
            "dt_ps": run["dt_ps"], "ns_per_day": run["ns_per_day"], "us_per_step": us,
            "host_syncs_per_step": run["host_syncs_per_step"], "mpi_waits_per_step": 0.0,
            "launches_per_step": run["launches_per_step"], "ns_step_us": run["ns_step_us"],
            "regular_step_us": run["regular_step_us"], "halo_bytes_per_step": 0,
            "nstlist": run["nstlist"], "rlist_nm": run["rlist_nm"], "pairs_in_list": run["pairs_in_list"],
            "conserved_drift_kj_mol_ps_atom": drift_per_atom(f"{work}/h_{tag}/energy.csv", atoms),
            "pair_list": kind,
            "gpu_lanes_per_atom": run.get("gpu_lanes_per_atom"),
            "gpu_phase_us_kernel_by_kernel": timed.get("gpu_phase_us", {}),
            "gpu_phase_us_ns_and_energy_steps": run.get("gpu_phase_us", {}),
            # The "average step including NS steps within 1.2x a regular step": the steady-state
            # wall time per step of the graph run over the GPU time of a regular step as the graph runs it
            # (CUDA events around the 5th regular step's graph launch after each search). Also over the
            # regular step of the kernel-by-kernel run (events around each kernel), which has launch gaps.
            "regular_step_graph_gpu_us": run.get("gpu_phase_us", {}).get("step_regular_graph"),
            "avg_over_regular_step": (round(us / run["gpu_phase_us"]["step_regular_graph"], 3)
                                      if run.get("gpu_phase_us", {}).get("step_regular_graph") else None),
            "avg_over_kernel_by_kernel_regular_step": (
                round(us / timed["gpu_phase_us"]["step_regular"], 3)
                if timed.get("gpu_phase_us", {}).get("step_regular") else None),
            "command": hcmd,
        }
        records.append(h)
        by_list[(name, kind)] = h["ns_per_day"]
        if kind == "cluster" and (name, "atom") in by_list:
            list_ratios[name] = h["ns_per_day"] / by_list[(name, "atom")]
    out = {
        "name": outname,
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "machine": machine(),
        "records": records,
        "ratio_halomd_over_openmm": ratios,
        "ratio_cluster_over_atom_pair_list": list_ratios,
        "notes": "halomd: benchmark settings of ../shared/BENCH.md (RF eps-rf 0, LJ potential-shift, v-rescale "
                 "0.1 ps / 300 K, nstcalcenergy 100, nstenergy 1000, verlet-buffer-tolerance 0.005, rlist from "
                 "GROMACS 2022's Verlet buffer estimate); ns_per_day over the steady state (first NS window "
                 "left out). OpenMM 8.6.1 CUDA, mixed precision, reactionFieldDielectric 1e10 (no eps-rf = "
                 "infinity), plain LJ cut-off (no potential-shift), VerletIntegrator + AndersenThermostat (no v-rescale), its own "
                 "pair-list rule; energies read every 1000 steps (bench/openmm_water.py).",
    }
    if os.environ.get("PCOUPL", "0") == "1":
        out["notes"] += (" NPT (PCOUPL=1): halomd pcoupl = C-rescale, tau-p 2 ps, compressibility 4.5e-5, ref-p 1 "
                         "bar, nstpcouple 10; OpenMM MonteCarloBarostat(1 bar, 300 K, every 25 steps).")
    os.makedirs("bench/results", exist_ok=True)
    with open(f"bench/results/{outname}.json", "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for engine, kind, style, label in (("halomd", "atom", "o-", "halomd --backend cuda"),
                                           ("halomd", "cluster", "^-", "halomd, cluster pair list"),
                                           ("openmm", None, "s--", "OpenMM 8.6.1 CUDA (mixed)")):
            pts = sorted((r["atoms"], r["ns_per_day"]) for r in records
                         if r["engine"] == engine and r.get("pair_list") == kind)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("atoms (SPC/E water)")
        ax.set_ylabel("ns/day (dt 2 fs)")
        ax.set_title(out["machine"].split(",")[0] + ", reaction field 1.0 nm")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(f"bench/results/{outname}.png", dpi=120)
    except Exception as e:  # the JSON is the result; the plot is a convenience
        print("no plot:", e)
    for r in records:
        print(f"{r['engine']:7s} {r.get('pair_list') or '':8s} {r['system']:10s} {r['atoms']:7d} atoms  {r['ns_per_day']:9.1f} ns/day  "
              f"{r['us_per_step']:8.2f} us/step"
              + (f"  avg/regular {r['avg_over_regular_step']}" if r.get("avg_over_regular_step") else ""))
    print("ratio halomd/openmm:", {k: round(v, 2) for k, v in ratios.items()})
    print("ratio cluster/atom pair list:", {k: round(v, 3) for k, v in list_ratios.items()})


if __name__ == "__main__":
    main()
