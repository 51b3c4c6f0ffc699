// The halomd command line: `halomd run`, `halomd genconf`.
#include <cstdio>
#include <exception>
#include <string>

#include "CLI/CLI.hpp"
#include "core/errors.h"
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
  CLI::App app{"halomd: molecular dynamics with GPU-initiated halo exchange (GROMACS inputs and units)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("halomd ") + HALOMD_VERSION);

  halomd::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "run molecular dynamics");
  run_cmd->add_option("-c", run.conf, "coordinates (.gro)")->required();
  run_cmd->add_option("-p", run.top, "topology (.top)")->required();
  run_cmd->add_option("-f", run.mdp, "run parameters (.mdp)")->required();
  run_cmd->add_option("-o", run.outdir, "output folder")->required();
  run_cmd->add_option("--backend", run.backend, "cpu")->check(CLI::IsMember({"cpu"}));
  run_cmd->add_option("--threads", run.threads, "CPU threads (results do not depend on it)")
      ->check(CLI::Range(1, 1024));
  run_cmd->add_option("--cpi", run.cpi, "continue from this checkpoint (state.cpt)");
  run_cmd->add_option("-I", run.include_dirs, "extra folder to search for #include files");
  run_cmd->add_option("--stop-at-step", run.stop_at_step, "testing aid: stop before this step as if killed")
      ->group("");

  std::string g_conf, g_top, g_out;
  std::vector<int> nbox;
  auto* gen_cmd = app.add_subcommand("genconf", "replicate a box (like gmx genconf) with its topology");
  gen_cmd->add_option("-c", g_conf, "coordinates (.gro)")->required();
  gen_cmd->add_option("-p", g_top, "topology (.top)")->required();
  gen_cmd->add_option("--nbox", nbox, "copies along x, y, z")->expected(3)->required();
  gen_cmd->add_option("-o", g_out, "output prefix: writes PREFIX.gro and PREFIX.top")->required();

  auto* dev_cmd = app.add_subcommand("devices", "list the GPUs this build can use");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  try {
    if (*run_cmd) {
      run.command_line = joined_command(argc, argv);
      halomd::run_md(run);
    } else if (*dev_cmd) {
      std::fputs(halomd::describe_gpus().c_str(), stdout);
    } else if (*gen_cmd) {
      halomd::genconf(g_conf, g_top, nbox[0], nbox[1], nbox[2], g_out);
    }
  } catch (const halomd::InputError& e) {
    std::fprintf(stderr, "halomd: error: %s\n", e.what());
    return 2;
  } catch (const halomd::RuntimeError& e) {
    std::fprintf(stderr, "halomd: run stopped: %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "halomd: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
