// qgate probe: runtime behaviour checks (probes.hpp). `qgate probe replay --backend vulkan`
// replays a captured decode-step chain against eager execution, bit for bit, every step;
// `qgate probe bifurcation --backend cpu|vulkan|cuda` greedy-decodes the tiny model along the
// fp64 oracle and each attention kernel of the backend (every other op on the backend's own
// kernels) and classifies every divergence as a near-tie or a defect.
// Exit 0 pass, 1 fail (a defect: a repro line follows), 77 skipped (backend unavailable: the
// reason is printed).
#include <cstdlib>
#include <iostream>

#include "kernels/mutant.hpp"
#include "properties/probes.hpp"
#include "tools/qgate/commands.hpp"

namespace qgate::cli {

void add_probe(CLI::App& app) {
  auto* cmd = app.add_subcommand("probe", "Run a probe: replay (captured command buffer / graph vs eager, every step), bifurcation (flash vs eager vs fp64 greedy decode)");
  auto name = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>("vulkan");
  auto steps = std::make_shared<int>(64);
  auto list = std::make_shared<bool>(false);
  auto mut = std::make_shared<std::string>();
  cmd->add_option("name", *name, "probe name (replay, bifurcation)");
  cmd->add_option("--backend", *backend, "backend")->check(CLI::IsMember({"cpu", "vulkan", "cuda", "hip"}));
  cmd->add_option("--steps", *steps, "decode steps (replay) or greedy tokens (bifurcation)")->check(CLI::Range(2, 4096));
  cmd->add_option("--mutant", *mut, "switch this planted mutant on first (qgate-mutants only; qgate mutants --list)");
  cmd->add_flag("--list", *list, "list the probes of this build");
  cmd->callback([=] {
    if (*list || name->empty()) {
      for (const ProbeInfo& p : all_probes())
        std::cout << p.name << " --backend " << backend_name(p.backend) << "\n    " << p.what << "\n";
      if (all_probes().empty()) std::cout << "no probes in this build (they need a device backend)\n";
      return;
    }
    BackendId b = BackendId::cpu;
    for (BackendId x : {BackendId::cpu, BackendId::vulkan, BackendId::cuda, BackendId::hip})
      if (backend_name(x) == *backend) b = x;
    const ProbeInfo* p = find_probe(*name, b);
    if (!mut->empty()) {
      const mutant::Info* m = mutant::find(*mut);
      if (!m) throw Failure{"unknown mutant '" + *mut + "' (qgate mutants --list)"};
      if (!mutant::compiled_in()) throw Failure{"--mutant needs the mutant build of the tool (qgate-mutants)"};
      mutant::activate(m->id);
    }
    if (!p) throw Failure{"no probe '" + *name + "' for backend " + *backend + " in this build (qgate probe --list)"};
    const ProbeReport r = p->run(*steps);
    std::cout << "probe " << p->name << " --backend " << *backend << ": " << (r.skipped ? "SKIPPED: " : "")
              << r.summary << "\n";
    if (r.skipped) throw Failure{"skipped", kExitSkipped};
    if (!r.pass) {  // the one line that reruns exactly this: the tiny model's settings come from the environment
      std::string env;
      for (const char* v : {"QGATE_TINY_SEED", "QGATE_TINY_EXPERTS"})
        if (const char* e = std::getenv(v)) env += std::string(v) + "=" + e + " ";
      std::cout << "repro: " << env << (mut->empty() ? "qgate" : "qgate-mutants") << " probe " << p->name << " --backend "
                << *backend << " --steps " << *steps << (mut->empty() ? "" : " --mutant " + *mut) << "\n";
      throw Failure{"probe FAILED", 1};
    }
  });
}

}  // namespace qgate::cli
