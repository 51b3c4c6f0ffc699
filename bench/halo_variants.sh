#!/usr/bin/env bash
# Same-call comparison of one halomd binary under several environment settings, on 4 domains 2x2x1 sharing
# one GPU (the MPS daemon running), runs interleaved so that a drift of the shared machine hits all alike:
# prints ns/day, the mid-window and first regular GPU step, the GPU-only search step, the exchanges the
# update packed, and the repartitions' host time and page faults, from run.json. A diagnostic, not a
# benchmark record: the figures go to bench/NOTES.md with the command.
# Usage: bench/halo_variants.sh HALOMD_BINARY NAME=SETTINGS...   e.g.
#   bench/halo_variants.sh devbin/halomd base= ov3="HALOMD_DD_OVERLAP=3" pp1="HALOMD_HALO_PREPACK=1"
# VAR_SYSTEMS (default "spce_45k:3000 spce_9k:6000"; also peptide_7k, with GMXLIB set), VAR_REPEATS (2),
# VAR_TRANSPORT (nvshmem). A variant whose settings hold COULOMB=PME runs with coulombtype = PME, one whose
# settings hold PCOUPL=1 NPT (bench_npt); HALOMD_GPU_TIMING=1 adds its per-phase GPU times (gpu_phase_us).
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
bin=$(realpath "${1:?usage: bench/halo_variants.sh HALOMD_BINARY NAME=SETTINGS...}")
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NCCL=1
export NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1
"$bin" genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top --nbox 2 2 2 \
  -o "$work/spce_45k" > /dev/null
cp tests/data/spce_9k/conf.gro "$work/spce_9k.gro"
cp tests/data/spce_9k/topol.top "$work/spce_9k.top"
cp examples/peptide/conf.gro "$work/peptide_7k.gro"  # bench/halo_one_gpu.sh's peptide_7k (GMXLIB)
cp examples/peptide/topol.top "$work/peptide_7k.top"
for item in ${VAR_SYSTEMS:-spce_45k:3000 spce_9k:6000}; do
  name=${item%%:*}
  bench_mdp "${item##*:}" > "$work/$name.mdp"
  [ "$name" = peptide_7k ] && echo "constraints = h-bonds" >> "$work/$name.mdp"
  sed "s/^coulombtype = .*/coulombtype = PME/" "$work/$name.mdp" > "$work/${name}_pme.mdp"
  for v in "" _pme; do
    { cat "$work/$name$v.mdp"; bench_npt; } > "$work/$name${v}_npt.mdp"
  done
  for rep in $(seq 1 "${VAR_REPEATS:-2}"); do
    for spec in "$@"; do
      tag=${spec%%=*}
      out="$work/${name}_${tag}_$rep"
      mdp=$name.mdp
      [[ " ${spec#*=} " == *" COULOMB=PME "* ]] && mdp=${name}_pme.mdp
      [[ " ${spec#*=} " == *" PCOUPL=1 "* ]] && mdp=${mdp%.mdp}_npt.mdp
      # The settings go to every rank through env in front of the binary.
      if ! (cd "$work" && timeout 200 mpirun --oversubscribe --allow-run-as-root --bind-to none -n 4 \
        env ${spec#*=} "$bin" run -c "$name.gro" -p "$name.top" -f "$mdp" -o "$out" --backend cuda \
        --transport "${VAR_TRANSPORT:-nvshmem}" --dd 2 2 1 > "$out.log" 2>&1); then
        echo "$name $tag $rep failed:"
        tail -5 "$out.log"
        continue
      fi
      python3 - "$out/run.json" "$name $tag $rep" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r.get("gpu_only_search_step_gpu", {})
g = r.get("gpu_only_search_step_graph_gpu", {})
print(f"{sys.argv[2]}: ns/day {r['ns_per_day']:.0f} mid {r.get('regular_step_gpu_mid_window_us', 0):.1f} "
      f"first {r.get('regular_step_gpu_us', 0):.1f} gpu-only search {s.get('us', 0):.0f} us "
      f"(as graphs {g.get('us', 0):.0f} us, {r.get('gpu_only_search_graph_launches')} of "
      f"{r.get('gpu_only_searches')}) "
      f"prepacked {r.get('halo_prepacked_exchanges')} released {r.get('halo_released_exchanges')} "
      f"repartitions {r.get('repartitions')} of {r.get('search_wall_us_mean', 0):.0f} us host "
      f"({r.get('search_page_faults_mean', 0):.0f} page faults), box rescales {r.get('box_rescales')} of "
      f"{r.get('box_rescale_us_mean', 0):.0f} us host")
if r.get("gpu_phase_us"):
    print("   phases (us):", ", ".join(f"{k} {v:.1f}" for k, v in r["gpu_phase_us"].items()))
PY
    done
  done
done
