#!/usr/bin/env bash
# halomd's CUDA executor (--backend cuda) against OpenMM 8.6.1 (CUDA platform, mixed precision) on the same
# GPU in the same call, on SPC/E water of three sizes, with the benchmark settings of ../shared/BENCH.md.
# Runs on the GPU machine. Writes bench/results/gpu_single.json (BENCH.md format) and gpu_single.png
# (ns/day against atoms), and copies both to $OUT when it is set.
#
# Systems (made here with `halomd genconf`; periodic copies of an equilibrated box are a valid periodic
# configuration):
#   spce_9k    tests/data/spce_9k as is: 8,916 atoms, 4.5 nm box
#   spce_45k   bench/systems/spce_5k6 (3.83 nm, bench/make_systems.sh) x 2x2x2: 45,120 atoms, 7.66 nm box
#   spce_203k  spce_5k6 x 4x3x3: 203,040 atoms, 15.32 x 11.49 x 11.49 nm
#   peptide    examples/peptide: a 9-residue amber99sb-ildn peptide in 2,409 TIP3P waters, 7,359 atoms, with
#              constraints = h-bonds (LINCS; OpenMM: HBonds) on top of the benchmark settings; not in the
#              default SYSTEMS (e.g. COULOMB=PME SYSTEMS="peptide:30000")
# COULOMB=PME runs both with PME (halomd: coulombtype = PME, GROMACS's defaults; OpenMM: PME with halomd's grid
# and beta, read from halomd's run.json) and names the results gpu_single_pme unless BENCH_NAME says.
# PCOUPL=1 runs NPT at 1 bar: halomd with pcoupl = C-rescale (tau-p 2 ps, nstpcouple 10), OpenMM with its
# MonteCarloBarostat (a volume move every 25 steps); the results are then named gpu_single[_pme]_npt.
# PAIR_LISTS="atom cluster" runs halomd with each pair list (HALOMD_GPU_CLUSTER=0/1, interleaved per system)
# and records the ratio; OPENMM=0 leaves OpenMM out; BENCH_NAME names the result files (gpu_single).
# Usage: COMMIT=<sha> bench/gpu_single.sh HALOMD_BINARY   (OpenMM must be importable by python3: on the H200
# machine `export PATH=/opt/torch/.venv/bin:$PATH; python3 -m pip install --no-deps --no-index .whl/*.whl`, the
# wheels carried in .whl/; that venv has the numpy OpenMM needs)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_mdp.sh
root=$(pwd)
bin=$(realpath "${1:?usage: bench/gpu_single.sh HALOMD_BINARY}")
work=$(mktemp -d)
logs=${BENCH_LOGS:-${OUT:-$work}/bench_logs}
mkdir -p "$logs" bench/results
nstlist=${NSTLIST:-10}

base=bench/systems/spce_5k6
"$bin" genconf -c $base/conf.gro -p $base/topol.top --nbox 2 2 2 -o "$work/spce_45k" > /dev/null
"$bin" genconf -c $base/conf.gro -p $base/topol.top --nbox 4 3 3 -o "$work/spce_203k" > /dev/null
cp tests/data/spce_9k/conf.gro "$work/spce_9k.gro"
cp tests/data/spce_9k/topol.top "$work/spce_9k.top"
cp examples/peptide/conf.gro "$work/peptide.gro"
cp examples/peptide/topol.top "$work/peptide.top"

# OpenMM's CUDA plugin finds cuFFT and NVRTC through the pip packages' folders (or the CUDA toolkit).
omm_libs=$(python3 -c 'import glob, os, site
print(":".join(sorted({d for sp in site.getsitepackages() for d in glob.glob(os.path.join(sp, "nvidia", "*", "lib")) + glob.glob(os.path.join(sp, "nvidia", "*", "*", "lib"))})))' || true)
omm_env="LD_LIBRARY_PATH=${omm_libs}:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"

records=()
for item in ${SYSTEMS:-spce_9k:30000 spce_45k:20000 spce_203k:5000}; do
  name=${item%%:*}
  steps=${item##*:}
  bench_mdp "$steps" "$nstlist" | sed "s/^coulombtype = .*/coulombtype = ${COULOMB:-Reaction-Field}/" > "$work/$name.mdp"
  omm_constraints=""
  if [ "${PCOUPL:-0}" = 1 ]; then
    bench_npt >> "$work/$name.mdp"
    omm_constraints="--barostat"
  fi
  if [ "$name" = peptide ]; then
    echo "constraints = h-bonds" >> "$work/$name.mdp"
    omm_constraints="$omm_constraints --constraints hbonds"
  fi
  sed "s/^nsteps = .*/nsteps = $((steps / 5))/" "$work/$name.mdp" > "$work/${name}_timed.mdp"
  for list in ${PAIR_LISTS:-atom}; do
    tag=$name$([ "$list" = atom ] || echo "_$list")
    cluster=$([ "$list" = cluster ] && echo 1 || echo 0)
    hcmd="HALOMD_GPU_CLUSTER=$cluster halomd run -c $name.gro -p $name.top -f $name.mdp -o h_$tag --backend cuda"
    (cd "$work" && HALOMD_GPU_CLUSTER=$cluster "$bin" ${hcmd#* halomd } > "$logs/halomd_$tag.log" 2>&1) ||
      echo "halomd failed on $tag"
    # The same run kernel by kernel with CUDA events (HALOMD_GPU_TIMING=1): where the step time goes.
    (cd "$work" && HALOMD_GPU_TIMING=1 HALOMD_GPU_CLUSTER=$cluster "$bin" run -c $name.gro -p $name.top \
      -f ${name}_timed.mdp -o t_$tag --backend cuda > "$logs/halomd_timed_$tag.log" 2>&1) ||
      echo "timed halomd failed on $tag"
    records+=("$name|$steps|$hcmd|$list")
  done
  if [ "${OPENMM:-1}" = 1 ]; then
    pme_args=""
    if [ "${COULOMB:-}" = PME ]; then
      # halomd's grid (run.json) and GROMACS's beta for rc 1.0 nm, ewald-rtol 1e-5 (calc_ewaldcoeff_q).
      pme_args=$(python3 - "$work/h_$name/run.json" << 'PY'
import json, math, sys
grid = json.load(open(sys.argv[1]))["pme_grid"]
beta, i = 5.0, 0
while True:
    beta *= 2; i += 1
    if math.erfc(beta) <= 1e-5: break
lo, hi = 0.0, beta
for _ in range(i + 60):
    beta = (lo + hi) / 2
    lo, hi = (beta, hi) if math.erfc(beta) > 1e-5 else (lo, beta)
print(f"--pme-grid {grid[0]} {grid[1]} {grid[2]} --ewald-alpha {beta:.12g}")
PY
)
    fi
    ocmd="python3 bench/openmm_water.py --gro $name.gro --top $name.top --steps $steps --precision mixed $pme_args $omm_constraints"
    # shellcheck disable=SC2086
    env "$omm_env" python3 bench/openmm_water.py --gro "$work/$name.gro" --top "$work/$name.top" --steps "$steps" \
      --precision mixed $pme_args $omm_constraints > "$work/o_$name.json" 2> "$logs/openmm_$name.log" ||
      echo '{}' > "$work/o_$name.json"
    records+=("$name|$steps|$ocmd|openmm")
  fi
done
for f in "$work"/[ht]_*/run.json; do [ -f "$f" ] && cp "$f" "$logs/run_$(basename "$(dirname "$f")").json"; done

suffix=""
[ "${COULOMB:-}" = PME ] && suffix=_pme
[ "${PCOUPL:-0}" = 1 ] && suffix=${suffix}_npt
out=${BENCH_NAME:-gpu_single$suffix}
python3 bench/gpu_single_report.py "$work" "${COMMIT:-unknown}" "$out" "${records[@]}"
[ -n "${OUT:-}" ] && cp bench/results/$out.json bench/results/$out.png "$OUT/" || true
