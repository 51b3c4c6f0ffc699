# The benchmark settings of ../shared/BENCH.md as one .mdp, for every benchmark script (source this file).
# bench_mdp STEPS [NSTLIST] [NSTENERGY]: prints the .mdp (nstlist 10 and nstenergy 1000 unless given).
bench_mdp() {
  cat << MDP
integrator = md
dt = 0.002
nsteps = $1
continuation = yes
cutoff-scheme = Verlet
nstlist = ${2:-10}
verlet-buffer-tolerance = 0.005
coulombtype = Reaction-Field
rcoulomb = 1.0
epsilon-rf = 0
vdw-modifier = Potential-shift
rvdw = 1.0
DispCorr = EnerPres
tcoupl = V-rescale
tc-grps = System
tau-t = 0.1
ref-t = 300
nstcalcenergy = 100
nstenergy = ${3:-1000}
ld-seed = 1
MDP
}
# The NPT lines the benchmarks append for PCOUPL=1: C-rescale at 1 bar, tau-p 2 ps, coupled every 10 steps
# (GROMACS 2022's default nstpcouple).
bench_npt() {
  printf 'pcoupl = C-rescale\ntau-p = 2\ncompressibility = 4.5e-5\nref-p = 1\nnstpcouple = 10\n'
}
