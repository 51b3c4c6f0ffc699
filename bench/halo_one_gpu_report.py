#!/usr/bin/env python3
"""Collects bench/halo_one_gpu.sh's runs into bench/results/halo_one_gpu.json (../shared/BENCH.md format)
and bench/results/halo_one_gpu.png (ns/day per transport and domain count); bench/multi_gpu.sh's into
multi_gpu.json/.png (REPORT_NAME, GPUS_VISIBLE). Arguments:
WORK COMMIT TAG|SYSTEM|STEPS|COMMAND..."""
import datetime
import json
import os
import sys

from gpu_single_report import machine  # the same machine line in every results file


def regular_gpu_us(run):
    """The steady-state regular step (mid-window events) where the run has it, else the older sample."""
    return run.get("regular_step_gpu_mid_window_us") or run.get("regular_step_gpu_us")


def main():
    work, commit, items = sys.argv[1], sys.argv[2], sys.argv[3:]
    # bench/multi_gpu.sh uses the same collection under another name, one rank per GPU.
    name = os.environ.get("REPORT_NAME", "halo_one_gpu")
    visible = int(os.environ.get("GPUS_VISIBLE", "1"))
    records = []
    for item in items:
        tag, system, steps, cmd = item.split("|")
        path = f"{work}/{tag}/run.json"
        if not os.path.exists(path):
            print("no result for", tag)
            continue
        run = json.load(open(path))
        domains = run.get("domains", 1)
        grid = run.get("dd_grid", "1x1x1")
        records.append({
            "engine": "halomd", "version": run["version"], "backend": "cuda",
            "transport": run["transport"] if domains > 1 else "none", "system": system, "atoms": run["atoms"],
            "gpus": min(visible, run.get("ranks", 1)), "ranks": run.get("ranks", 1), "domains": domains,
            "dd": [int(v) for v in grid.split("x")], "steps": int(steps),
            "timed_steps": run["last_step"] + 1 - run["first_step"] - run["nstlist"], "dt_ps": run["dt_ps"],
            "ns_per_day": run["ns_per_day"],
            "us_per_step": run["dt_ps"] * 1e-3 * 86400.0 / run["ns_per_day"] * 1e6,
            "host_syncs_per_step": run["host_syncs_per_step"], "mpi_waits_per_step": run["mpi_waits_per_step"],
            "launches_per_step": run["launches_per_step"], "ns_step_us": run["ns_step_us"],
            "regular_step_us": run["regular_step_us"], "halo_bytes_per_step": run["halo_bytes_per_step"],
            "halo_pulses": run.get("halo_pulses"), "nstlist": run["nstlist"], "rlist_nm": run["rlist_nm"],
            "search_wall_us_mean": run.get("search_wall_us_mean"),
            "search_parts_us_mean": run.get("search_parts_us_mean"),
            "search_parts_us_mean_max_over_ranks": run.get("search_parts_us_mean_max_over_ranks"),
            # Repartitions (host: migration, plan, upload) and searches that kept the plan (GPU only), the skin.
            "repartitions": run.get("repartitions"), "gpu_only_searches": run.get("gpu_only_searches"),
            # NPT (PCOUPL=1): the coupling steps that reboxed the plan in place, and their host time.
            "box_rescales": run.get("box_rescales"), "box_rescale_us_mean": run.get("box_rescale_us_mean"),
            "dd_skin_nm": run.get("dd_skin_nm"), "ranks_per_gpu": run.get("ranks_per_gpu"),
            "gpu_lanes_per_atom": run.get("gpu_lanes_per_atom"),
            # GPU time of a regular step (CUDA events on rank 0), and the average step (NS steps included)
            # over it: the "average step within 1.2x a regular step". The regular step is the
            # steady-state sample, the 5th regular step after every search. The first step after each
            # host repartition (regular_step_after_repartition_gpu_us) included the graph's re-recording
            # until the eighth session (bench/NOTES.md).
            "regular_step_gpu_us": regular_gpu_us(run),
            "regular_step_after_repartition_gpu_us": run.get("regular_step_gpu_us"),
            "regular_step_sample": ("mid_window" if run.get("regular_step_gpu_mid_window_us")
                                    else "after_repartition"),
            # GPU time of the search steps by phase (CUDA events from the step's coordinate halo on): where
            # the average step's excess over the regular one goes besides the host's repartitions.
            "gpu_only_search_step_gpu": run.get("gpu_only_search_step_gpu"),
            "repartition_step_gpu": run.get("repartition_step_gpu"),
            "avg_over_regular_step": (round(run["dt_ps"] * 1e-3 * 86400.0 / run["ns_per_day"] * 1e6
                                            / regular_gpu_us(run), 3)
                                      if regular_gpu_us(run) else None),
            "command": cmd,
        })
    ratios = {}
    for sys_name in sorted({r["system"] for r in records}):
        for d in (2, 4, 8):
            by = {r["transport"]: r["ns_per_day"] for r in records if r["system"] == sys_name and r["domains"] == d}
            one = [r["ns_per_day"] for r in records if r["system"] == sys_name and r["domains"] == 1]
            for t in ("nvshmem", "nvshmem_put"):
                for peer in ("mpi_staged", "cuda_ipc"):
                    if t in by and peer in by:
                        ratios[f"{sys_name} {d} domains {t}/{peer}"] = round(by[t] / by[peer], 3)
            if one and "nvshmem" in by:
                ratios[f"{sys_name} {d} domains step time nvshmem/1 domain"] = round(one[0] / by["nvshmem"], 3)
    out = {
        "name": name,
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "machine": machine(),
        "records": records,
        "ratios": ratios,
        "notes": ("All domains on the one GPU (MPS, one rank per domain)." if visible == 1 else
                  f"One rank per GPU ({visible} visible)." if not os.environ.get("MULTI_GPU_DRY_RUN") else
                  f"A dry run of bench/multi_gpu.sh: {visible} GPUs pretended, the ranks sharing the machine's "
                  "GPUs under MPS.") + "  Benchmark settings of ../shared/BENCH.md "
                 "(nstlist 10). Counters are rank 0's (every rank runs the same sequence of calls). ns_per_day "
                 "over the steady state (first NS window left out)." +
                 (" coulombtype = PME (GROMACS's defaults: fourier-spacing 0.12, pme-order 4, ewald-rtol 1e-5) "
                  "instead of reaction field; on domains the charge grid is summed over the ranks and every rank "
                  "transforms it." if os.environ.get("COULOMB") == "PME" else "") +
                 (" NPT: pcoupl = C-rescale, tau-p 2 ps, ref-p 1 bar, nstpcouple 10 (each coupling step an energy "
                  "step)." if os.environ.get("PCOUPL") == "1" else ""),
    }
    os.makedirs("bench/results", exist_ok=True)
    with open(f"bench/results/{name}.json", "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        systems = sorted({r["system"] for r in records})
        fig, axes = plt.subplots(1, len(systems), figsize=(5.5 * len(systems), 4.2), squeeze=False)
        names = ["none", "mpi_staged", "cuda_ipc", "nvshmem", "nvshmem_put"]
        for ax, s in zip(axes[0], systems):
            labels, values = [], []
            for d in (1, 2, 4, 8):
                for t in names:
                    v = [r["ns_per_day"] for r in records if r["system"] == s and r["domains"] == d
                         and r["transport"] == t]
                    if v:
                        labels.append(f"{d}: {t}")
                        values.append(v[0])
            ax.bar(range(len(values)), values, color=["C%d" % names.index(l.split(": ")[1]) for l in labels])
            ax.set_xticks(range(len(values)))
            ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
            ax.set_ylabel("ns/day (dt 2 fs)")
            ax.set_title(f"{s}, domains on one {out['machine'].split(',')[0]}")
            ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(f"bench/results/{name}.png", dpi=120)
    except Exception as e:
        print("no plot:", e)
    for r in records:
        print(f"{r['system']:9s} {r['domains']} dom {r['transport']:12s} {r['ns_per_day']:9.1f} ns/day "
              f"{r['us_per_step']:8.1f} us/step  syncs {r['host_syncs_per_step']}  waits {r['mpi_waits_per_step']}"
              f"  launches {r['launches_per_step']}  ns_step {r['ns_step_us']:.0f} us  search {r['search_wall_us_mean']}"
              f" us  avg/regular {r['avg_over_regular_step']}  gpu step {r['regular_step_gpu_us']} us"
              f"  repartitions {r['repartitions']}/{(r['repartitions'] or 0) + (r['gpu_only_searches'] or 0)}")
    for k, v in ratios.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
