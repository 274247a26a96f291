// qgate repro: replay one case, from a spec line (what a failure prints) or a case file.
#include <iostream>

#include "backends/backend.hpp"
#include "kernels/mutant.hpp"
#include "properties/catalog.hpp"
#include "properties/fused_case.hpp"
#include "properties/replay.hpp"
#include "tools/qgate/commands.hpp"
#include "kernels/registry.hpp"

namespace qgate::cli {

void add_repro(CLI::App& app) {
  auto* cmd = app.add_subcommand("repro", "Replay a failing case: --kernel/--property/--case, or case files");
  auto kernel = std::make_shared<std::string>();
  auto property = std::make_shared<std::string>("random_blocks");
  auto spec = std::make_shared<std::string>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto mutant_name = std::make_shared<std::string>();
  cmd->add_option("--kernel", *kernel, "registered kernel name (qgate list --kernels)");
  cmd->add_option("--property", *property, "property whose generator made the case");
  cmd->add_option("--case", *spec, "the case spec the failure printed (m=..,n=..,k=..,codes=..,...)");
  cmd->add_option("files", *files, "regression case files to replay on every kernel of their op and format");
  cmd->add_option("--mutant", *mutant_name, "switch this planted mutant on first (qgate-mutants only)");
  cmd->callback([=] {
    bool all_pass = true;
    if (!mutant_name->empty()) {
      const mutant::Info* m = mutant::find(*mutant_name);
      if (!m) throw Failure{"unknown mutant '" + *mutant_name + "' (qgate mutants --list)"};
      if (!mutant::compiled_in()) throw Failure{"--mutant needs the mutant build of the tool (qgate-mutants)"};
      mutant::activate(m->id);
    }
    if (!files->empty()) {
      if (!kernel->empty() || !spec->empty()) throw Failure{"give either case files or --kernel/--case, not both"};
      for (const std::string& path : *files) {
        std::vector<ReplayResult> rs;
        std::string err;
        if (!replay_case_file(path, rs, err)) throw Failure{err};
        std::cout << path << "\n";
        for (const ReplayResult& r : rs) {
          if (r.skipped) {
            std::cout << "  " << r.kernel->name << ": SKIPPED: " << r.skip_reason << "\n";
            continue;
          }
          std::cout << "  " << r.kernel->name << ": " << r.outcome.summary() << "\n";
          all_pass &= r.outcome.pass() || r.outcome.kind == CaseOutcome::Kind::rejected_by_kernel;
        }
      }
    } else {
      if (kernel->empty() || spec->empty()) throw Failure{"repro needs --kernel and --case (or case files)"};
      const KernelInfo* k = find_kernel(*kernel);
      if (!k) throw Failure{"unknown kernel '" + *kernel + "' (qgate list --kernels)"};
      const PropertyInfo* p = find_property(*property);
      if (!p) throw Failure{"unknown property '" + *property + "'"};
      std::string err;
      if (is_fused(k->op)) {  // a fusion or attention case: a fused spec (op=...,values=...)
        if (!applies(*p, *k)) throw Failure{"property " + *property + " does not apply to " + *kernel};
        FusedSpec fs;
        if (!parse_fused_spec(*spec, fs, err)) throw Failure{"bad --case: " + err};
        if (fs.op != k->op)
          throw Failure{"bad --case: op=" + std::string(op_name(fs.op)) + " but " + *kernel + " is " + std::string(op_name(k->op))};
        const Availability a = probe_kernel(*k);
        if (!a.available) throw Failure{std::string(backend_name(k->backend)) + " skipped: " + a.reason, 3};
        std::string detail;
        const CaseOutcome o = run_fused_case(*k, materialize_fused(fs), &detail);
        std::cout << k->name << " " << to_string(fs) << "\n  " << o.summary() << (detail.empty() ? "" : " (" + detail + ")")
                  << "\n";
        if (!o.pass()) throw Failure{"repro: the case FAILS", 1};
        return;
      }
      CaseSpec s;
      if (!parse_spec(*spec, s, err)) throw Failure{"bad --case: " + err};
      const Availability a = probe_kernel(*k);
      if (!a.available) throw Failure{std::string(backend_name(k->backend)) + " skipped: " + a.reason, 3};
      const CaseOutcome o = run_spec(*k, *p, s);
      std::cout << k->name << " " << to_string(s) << "\n  " << o.summary() << "\n";
      all_pass = o.pass();
    }
    if (!all_pass) throw Failure{"repro: the case FAILS", 1};
  });
}

}  // namespace qgate::cli
