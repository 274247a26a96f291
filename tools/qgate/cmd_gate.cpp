// qgate gate: the main job. Every registered kernel on every backend under every property
// that applies; prints the format x op x backend matrix and every failure with its repro.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "properties/gate_run.hpp"
#include "tools/qgate/commands.hpp"

namespace qgate::cli {

void add_gate(CLI::App& app) {
  auto* cmd = app.add_subcommand("gate", "Gate kernels against the fp64 oracle (nbad = 0 required) and print the matrix");
  auto f = std::make_shared<GateFilter>();
  auto seed = std::make_shared<uint64_t>(0);
  auto regression = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  cmd->add_option("--backend", f->backend, "only this backend (cpu, vulkan, cuda, hip)")
      ->check(CLI::IsMember({"cpu", "vulkan", "cuda", "hip"}));
  cmd->add_option("--format", f->format, "only kernels of this format (GGUF name, case-insensitive)");
  cmd->add_option("--op", f->op, "only this op")->check(CLI::IsMember({"dequant", "matmul"}));
  cmd->add_option("--kernel", f->kernel, "only kernels whose name contains this");
  cmd->add_option("--property", f->property, "only this property");
  cmd->add_option("--seed", *seed, "RapidCheck seed (default: QGATE_SEED or a fixed constant; always printed)");
  cmd->add_option("--regression-dir", *regression, "write each failing case here (e.g. regression/cases)");
  cmd->add_flag("--quiet", *quiet, "print only the matrix and failures");
  cmd->callback([=] {
    if (!f->format.empty() && !find_format(f->format)) throw Failure{"unknown format '" + f->format + "'"};
    if (!f->property.empty() && !find_property(f->property)) throw Failure{"unknown property '" + f->property + "'"};
    RunOptions opt;
    opt.seed = *seed;
    opt.regression_dir = *regression;
    const bool tty = isatty(fileno(stderr)) && !*quiet;
    std::printf("qgate gate: seed 0x%llx\n", static_cast<unsigned long long>(opt.seed ? opt.seed : default_seed()));
    std::fflush(stdout);
    const GateReport rep = run_gate(*f, opt, [&](size_t i, size_t n, const std::string& name) {
      if (tty) std::fprintf(stderr, "\r[%zu/%zu] %-48.48s", i + 1, n, name.c_str());
    });
    if (tty) std::fprintf(stderr, "\r%-70s\r", "");
    if (rep.kernels.empty()) throw Failure{"no registered kernel matches the filter"};
    std::cout << format_matrix(rep) << format_failures(rep);
    if (!rep.pass()) throw Failure{"gate FAILED", 1};
    std::cout << "gate PASSED\n";
  });
}

}  // namespace qgate::cli
