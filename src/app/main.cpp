// The halomd command line: `halomd run`, `halomd genconf`.
#include <cstdio>
#include <exception>
#include <string>

#include "CLI/CLI.hpp"
#include "core/errors.h"
#include "core/heap.h"
#include "engine/backends.h"
#include "engine/genconf.h"
#include "engine/md_run.h"

namespace {

std::string joined_command(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  halomd::keep_freed_memory();  // core/heap.h
  CLI::App app{"halomd: molecular dynamics with GPU-initiated halo exchange (GROMACS inputs and units)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("halomd ") + HALOMD_VERSION);

  halomd::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "run molecular dynamics");
  run_cmd->add_option("-c", run.conf, "coordinates (.gro)")->required();
  run_cmd->add_option("-p", run.top, "topology (.top)")->required();
  run_cmd->add_option(
      "-r", run.ref,
      "reference positions of position restraints (.gro; default: the -c structure, as grompp)");
  run_cmd->add_option("-n", run.index,
                      "index file (.ndx): its groups are then the only ones tc-grps and the other group "
                      "options may name, as grompp -n");
  run_cmd->add_option("-f", run.mdp, "run parameters (.mdp)")->required();
  run_cmd->add_option("-o", run.outdir, "output folder")->required();
  // "cuda" is accepted in every build; a build without CUDA says so when the executor is made.
  run_cmd->add_option("--backend", run.backend, "cpu (default) or cuda (one GPU, device-resident)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  run_cmd->add_option("--threads", run.threads, "CPU threads (results do not depend on it)")
      ->check(CLI::Range(1, 1024));
  run_cmd->add_option("--cpi", run.cpi, "continue from this checkpoint (state.cpt)");
  run_cmd->add_option("-I", run.include_dirs, "extra folder to search for #include files");
  run_cmd->add_option("--stop-at-step", run.stop_at_step, "testing aid: stop before this step as if killed")
      ->group("");
  run_cmd
      ->add_option("--domains", run.domains, "domain decomposition: number of domains (under mpirun: ranks)")
      ->check(CLI::Range(1, 1 << 20));
  run_cmd
      ->add_option("--transport", run.transport,
                   "halo transport: local (all domains in this process) or mpi (one domain per rank; the "
                   "default under mpirun); with --backend cuda under mpirun: mpi_staged, cuda_ipc, nvshmem "
                   "(the default where built) or nvshmem_put")
      ->check(CLI::IsMember({"local", "mpi", "mpi_staged", "cuda_ipc", "nvshmem", "nvshmem_put"}));
  run_cmd->add_option("--dd", run.dd, "domain grid NX NY NZ (default: chosen like GROMACS)")->expected(3);

  std::string g_conf, g_top, g_out;
  std::vector<int> nbox;
  auto* gen_cmd = app.add_subcommand("genconf", "replicate a box (like gmx genconf) with its topology");
  gen_cmd->add_option("-c", g_conf, "coordinates (.gro)")->required();
  gen_cmd->add_option("-p", g_top, "topology (.top)")->required();
  gen_cmd->add_option("--nbox", nbox, "copies along x, y, z")->expected(3)->required();
  gen_cmd->add_option("-o", g_out, "output prefix: writes PREFIX.gro and PREFIX.top")->required();

  auto* dev_cmd = app.add_subcommand("devices", "list the GPUs this build can use");
  bool check_nvshmem = false;
  dev_cmd->add_flag("--check-nvshmem", check_nvshmem,
                    "under mpirun: check that the ranks' GPUs exchange data through NVSHMEM");
  std::string check_halo;
  std::vector<int> check_dd;
  int check_rounds = 6;
  dev_cmd->add_option("--check-halo", check_halo,
                      "under mpirun: check a GPU halo transport (mpi_staged, cuda_ipc, nvshmem, nvshmem_put) "
                      "against the reference exchange");
  dev_cmd
      ->add_option("--dd", check_dd, "with --check-halo: the domain grid NX NY NZ (default: ranks x 1 x 1)")
      ->expected(3);
  dev_cmd->add_option("--rounds", check_rounds, "with --check-halo: exchanges to check");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  // A failure on one rank of a decomposed run ends every rank (abort_processes), so that none waits forever.
  int rc = 0;
  std::string who = "halomd";
  try {
    if (*run_cmd) {
      halomd::start_processes(run.transport == "mpi");
      if (halomd::process_count() > 1)
        who = "halomd (rank " + std::to_string(halomd::process_rank()) + " of " +
              std::to_string(halomd::process_count()) + ")";
      run.command_line = joined_command(argc, argv);
      halomd::run_md(run);
    } else if (*dev_cmd && check_nvshmem) {
      halomd::start_processes(true);
      who = "halomd (rank " + std::to_string(halomd::process_rank()) + ")";
      std::fputs(halomd::check_nvshmem().c_str(), stdout);
    } else if (*dev_cmd && !check_halo.empty()) {
      halomd::start_processes(true);
      who = "halomd (rank " + std::to_string(halomd::process_rank()) + ")";
      std::fputs(halomd::check_halo(check_halo, check_dd, check_rounds).c_str(), stdout);
    } else if (*dev_cmd) {
      std::fputs(halomd::describe_gpus().c_str(), stdout);
    } else if (*gen_cmd) {
      halomd::genconf(g_conf, g_top, nbox[0], nbox[1], nbox[2], g_out);
    }
  } catch (const halomd::InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), e.what());
    rc = 2;
  } catch (const halomd::RuntimeError& e) {
    std::fprintf(stderr, "%s: run stopped: %s\n", who.c_str(), e.what());
    rc = 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), e.what());
    rc = 1;
  }
  if (rc != 0) halomd::abort_processes(rc);
  halomd::finish_processes();
  return rc;
}
