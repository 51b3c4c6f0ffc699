#!/usr/bin/env bash
# Same-call comparison of two halomd binaries on domains sharing one GPU (the MPS daemon running): for each
# system and transport, 4 domains 2x2x1 unless told otherwise, runs A, B, A, B, ... (interleaved, so a drift
# of the shared machine hits both alike) and prints ns/day, the regular GPU step, the repartitions and the host parts of a
# repartition from run.json. A diagnostic, not a benchmark record: the figures go to bench/NOTES.md with the
# command. Used by `STAGES=ab bench/device_halo.sh` with devbin/halomd_base as A.
# Usage: bench/halo_ab.sh BIN_A BIN_B   (AB_SYSTEMS "spce_45k:3000 spce_9k:6000", AB_TRANSPORTS
# "nvshmem mpi_staged", AB_REPEATS 2; AB_KEEP: a folder to keep each run's run.json in; AB_RANKS and AB_DD
# another grid than 4 ranks on 2x2x1; COULOMB=PME for coulombtype = PME)
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
bin_a=$(realpath "${1:?usage: bench/halo_ab.sh BIN_A BIN_B}")
bin_b=$(realpath "${2:?usage: bench/halo_ab.sh BIN_A BIN_B}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
mpirun="mpirun --oversubscribe --allow-run-as-root --bind-to none"

"$bin_b" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 \
  -o "$work/spce_45k" > /dev/null
cp tests/data/spce_9k/conf.gro "$work/spce_9k.gro"
cp tests/data/spce_9k/topol.top "$work/spce_9k.top"

summary() {  # run.json -> one line
  python3 - "$1" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
parts = r.get("search_parts_us_mean", {})
keep = [k for k, v in parts.items() if v >= 50]  # the parts that matter
print(f"ns/day {r['ns_per_day']:.0f} regular GPU step {r.get('regular_step_gpu_us', 0):.1f} us "
      f"(mid-window {r.get('regular_step_gpu_mid_window_us', 0):.1f}) "
      f"repartitions {r.get('repartitions')} searches {r.get('searches')} "
      f"repartition {r.get('search_wall_us_mean', 0):.0f} us "
      f"({r.get('search_page_faults_mean', 0):.0f} page faults): "
      + " ".join(f"{k} {parts.get(k, 0):.0f}" for k in keep)
      + f" | speculative {r.get('speculative_checks', 0)} rollbacks {r.get('rollbacks', 0)}"
      f" settle wait {r.get('speculation_wait_us_mean', 0):.0f} us gpu-only {r.get('gpu_only_searches', 0)}"
      + (f" | ahead: committed {r['plans_ahead']['committed']} dropped {r['plans_ahead']['dropped']}"
         f" join {parts.get('ahead_join', 0):.0f} us thread "
         f"{sum(r['plans_ahead']['thread_parts_us_mean'].values()):.0f} us" if "plans_ahead" in r else "")
      + "".join(f" | {name} GPU {r[key]['us']:.0f} us: "
                + " ".join(f"{k} {v:.0f}" for k, v in r[key]["phases_us"].items())
                for key, name in (("gpu_only_search_step_gpu", "gpu-only search step"),
                                  ("repartition_step_gpu", "repartition step")) if key in r))
PY
}

for item in ${AB_SYSTEMS:-spce_45k:3000 spce_9k:6000}; do
  name=${item%%:*}
  steps=${item##*:}
  bench_mdp "$steps" | sed "s/^coulombtype = .*/coulombtype = ${COULOMB:-Reaction-Field}/" > "$work/$name.mdp"
  for t in ${AB_TRANSPORTS:-nvshmem mpi_staged}; do
    for rep in $(seq 1 "${AB_REPEATS:-2}"); do
      for tag in A B; do
        bin=$bin_a
        [ "$tag" = B ] && bin=$bin_b
        out="$work/${name}_${t}_${tag}_$rep"
        if (cd "$work" && timeout 200 $mpirun -n "${AB_RANKS:-4}" "$bin" run -c "$name.gro" -p "$name.top" \
          -f "$name.mdp" -o "$out" --backend cuda --transport "$t" --dd ${AB_DD:-2 2 1} > "$out.log" 2>&1); then
          echo "$name $t $tag $rep: $(summary "$out/run.json")"
          [ -n "${AB_KEEP:-}" ] && mkdir -p "$AB_KEEP" && cp "$out/run.json" "$AB_KEEP/${name}_${t}_${tag}_$rep.json"
        else
          echo "$name $t $tag $rep: FAILED"
          tail -3 "$out.log"
        fi
      done
    done
  done
done
