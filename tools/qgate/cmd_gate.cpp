// qgate gate: the main job. Every registered kernel on every backend under every property
// that applies; prints the format x op x backend matrix and every failure with its repro.
// With --gguf/--tensor the weight is a real tensor and the properties that take a given
// weight run over it; with --report the run is also written as JUnit XML, a Markdown
// matrix and heat maps of the failing cases. With --plugin the kernels are a plugin
// library's (docs/PLUGINS.md), each launch in a child process under a watchdog.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "io/gguf/weight.hpp"
#include "kernels/mutant.hpp"
#include "properties/fixed_weight.hpp"
#include "properties/gate_run.hpp"
#include "properties/plugin_host.hpp"
#include "report/report.hpp"
#include "tools/qgate/commands.hpp"

namespace qgate::cli {
namespace {

struct GateArgs {
  GateFilter f;
  uint64_t seed = 0;
  std::string regression, gguf, tensor, rows, report, mutant;
  std::vector<std::string> plugins, plugin_args;
  double plugin_timeout = 10;
  bool quiet = false;
};

// The filter as the options that set it, for messages ("--op matmul --property many_rows").
std::string describe(const GateFilter& f) {
  std::string o;
  for (const auto& [opt_name, v] : {std::pair{"--property", f.property}, {"--op", f.op}, {"--format", f.format},
                                    {"--kernel", f.kernel}, {"--backend", f.backend}})
    if (!v.empty()) o += std::string(o.empty() ? "" : " ") + opt_name + " " + v;
  return o.empty() ? "none" : o;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_plugin_args(const std::vector<std::string>& items,
                                                                   bool have_plugins) {
  std::vector<std::pair<std::string, std::string>> args;
  for (const std::string& kv : items) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw Failure{"--plugin-arg needs KEY=VALUE, got '" + kv + "'"};
    args.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (!args.empty() && !have_plugins) throw Failure{"--plugin-arg needs --plugin"};
  return args;
}

void add_gate(CLI::App& app) {
  auto* cmd = app.add_subcommand("gate", "Gate kernels against the fp64 oracle (nbad = 0 required) and print the matrix");
  auto a = std::make_shared<GateArgs>();
  GateFilter& f = a->f;
  cmd->add_option("--backend", f.backend, "only this backend (cpu, vulkan, cuda, hip)")
      ->check(CLI::IsMember({"cpu", "vulkan", "cuda", "hip"}));
  cmd->add_option("--format", f.format, "only kernels of this format (GGUF name, case-insensitive)");
  std::vector<std::string> ops = {"dequant", "matmul", "gate_up"};
  for (Op o : kFusedOps) ops.emplace_back(op_name(o));
  cmd->add_option("--op", f.op, "only this op (dequant, matmul, gate_up, or a fusion: add_rmsnorm, ..., attention)")
      ->check(CLI::IsMember(ops));
  cmd->add_option("--kernel", f.kernel, "only kernels whose name contains this");
  cmd->add_option("--property", f.property, "only this property");
  cmd->add_option("--seed", a->seed, "RapidCheck seed (default: QGATE_SEED or a fixed constant; always printed)");
  cmd->add_option("--regression-dir", a->regression, "write each failing case here (e.g. regression/cases)");
  cmd->add_flag("--quiet", a->quiet, "print only the matrix and failures");
  auto* gguf = cmd->add_option("--gguf", a->gguf, "gate on a tensor of this GGUF v3 file (with --tensor)");
  cmd->add_option("--tensor", a->tensor, "the tensor's name (qgate gguf list FILE shows them)")->needs(gguf);
  cmd->add_option("--rows", a->rows, "only rows A..B-1 of the tensor (A:B; default all, at most 2^20 elements)")->needs(gguf);
  cmd->add_option("--report", a->report, "also write DIR/junit.xml, DIR/matrix.md and DIR/heatmaps/*.png");
  cmd->add_option("--plugin", a->plugins,
                  "gate the kernels of this plugin library instead of the registered ones (repeatable; docs/PLUGINS.md)");
  cmd->add_option("--plugin-arg", a->plugin_args,
                  "KEY=VALUE handed to every --plugin library's version 2 entry and init (repeatable, in order)");
  cmd->add_option("--plugin-timeout", a->plugin_timeout, "watchdog: seconds one plugin launch may take (default 10)")
      ->check(CLI::Range(0.001, 3600.0));
  cmd->add_option("--mutant", a->mutant, "switch this planted mutant on first (qgate-mutants only; qgate mutants --list)");
  cmd->callback([a] {
    GateFilter& f = a->f;
    if (!f.format.empty() && !find_format(f.format)) throw Failure{"unknown format '" + f.format + "'"};
    if (!f.property.empty() && !find_property(f.property)) throw Failure{"unknown property '" + f.property + "'"};
    if (!a->gguf.empty() && a->tensor.empty()) throw Failure{"--gguf needs --tensor NAME (qgate gguf list " + a->gguf + ")"};
    if (!a->plugins.empty() && !a->gguf.empty()) throw Failure{"--plugin with --gguf is not supported yet"};
    const PluginArgs plugin_args = parse_plugin_args(a->plugin_args, !a->plugins.empty());
    if (!a->mutant.empty()) {
      const mutant::Info* m = mutant::find(a->mutant);
      if (!m) throw Failure{"unknown mutant '" + a->mutant + "' (qgate mutants --list)"};
      if (!mutant::compiled_in()) throw Failure{"--mutant needs the mutant build of the tool (qgate-mutants)"};
      mutant::activate(m->id);
    }
    RunOptions opt;
    opt.seed = a->seed;
    opt.regression_dir = a->regression;
    const uint64_t seed = opt.seed ? opt.seed : default_seed();
    const bool tty = isatty(fileno(stderr)) && !a->quiet;
    auto progress = [&](size_t i, size_t n, const std::string& name) {
      if (tty) std::fprintf(stderr, "\r[%zu/%zu] %-48.48s", i + 1, n, name.c_str());
    };

    GateReport rep;
    std::unique_ptr<PluginHost> plugins;  // owns the plugin kernels until the report is written
    std::string input = "generated cases (properties.inc)";
    if (!a->gguf.empty()) {
      gguf::MappedFile file;
      if (std::string e = file.open(a->gguf); !e.empty()) throw Failure{e};
      gguf::RowRange rows;
      if (!a->rows.empty())
        if (std::string e = gguf::parse_rows(a->rows, rows); !e.empty()) throw Failure{e};
      if (a->rows.empty()) {
        // Default window: the whole tensor up to 2^20 elements (the oracle's cost grows with
        // N*K*M); --rows picks any other window.
        if (const gguf::TensorInfo* t = file.file().find_tensor(a->tensor); t && t->k() > 0 && t->n() * t->k() > (1u << 20))
          rows = {0, std::max<uint64_t>(1, (1u << 20) / t->k())};
      }
      QTensor w;
      if (std::string e = gguf::load_weight(file, a->tensor, rows, w); !e.empty()) throw Failure{a->gguf + ": " + e};
      if (!f.format.empty() && find_format(f.format) != w.fmt)
        throw Failure{"--format " + f.format + " but tensor '" + a->tensor + "' is " + std::string(w.fmt->name)};
      const gguf::TensorInfo& t = *file.file().find_tensor(a->tensor);
      const uint64_t r0 = rows.end ? rows.begin : 0, r1 = rows.end ? rows.end : t.n();
      input = "GGUF " + a->gguf + ", tensor " + a->tensor + " (" + std::string(w.fmt->name) + ", " + t.shape() +
              "), rows " + std::to_string(r0) + ".." + std::to_string(r1 - 1) + " of " + std::to_string(t.n());
      std::printf("qgate gate: %s\nqgate gate: seed 0x%llx\n", input.c_str(), static_cast<unsigned long long>(seed));
      std::fflush(stdout);
      FixedWeightOptions fo;
      fo.run = opt;
      fo.repro_prefix = "qgate gate --gguf " + shell_quote(a->gguf) + " --tensor " + shell_quote(a->tensor) +
                        (a->rows.empty() ? "" : " --rows " + a->rows) +
                        (a->mutant.empty() ? "" : " --mutant " + a->mutant);
      rep = run_gate_fixed(f, w, fo, progress);
      if (tty) std::fprintf(stderr, "\r%-70s\r", "");
      if (rep.kernels.empty())
        throw Failure{"no registered kernel of format " + std::string(w.fmt->name) + " matches the filter (" + describe(f) + ")"};
      for (const KernelGate& g : rep.kernels)
        if (g.skipped) std::cout << "skipped " << g.kernel->name << ": " << g.skip_reason << "\n";
    } else if (!a->plugins.empty()) {
      std::printf("qgate gate: seed 0x%llx\n", static_cast<unsigned long long>(seed));
      std::fflush(stdout);
      plugins = std::make_unique<PluginHost>(a->plugin_timeout);
      for (const std::string& lib : a->plugins) plugins->load(lib, plugin_args);
      std::vector<const KernelInfo*> selected;
      for (const KernelInfo* k : plugins->kernels())
        if (f.matches(*k)) selected.push_back(k);
      std::printf("qgate gate: %zu plugin kernel(s) from %zu librar%s, each kernel's launches in a session process of its own (watchdog %g s)\n",
                  selected.size(), a->plugins.size(), a->plugins.size() == 1 ? "y" : "ies", a->plugin_timeout);
      std::fflush(stdout);
      input = "generated cases (properties.inc) on plugin kernels";
      rep = run_gate_kernels(selected, f, opt, progress);
      if (tty) std::fprintf(stderr, "\r%-70s\r", "");
      rep.unloaded = plugins->unloaded();
      plugins->annotate(rep);
      if (rep.kernels.empty() && rep.unloaded.empty()) throw Failure{"no plugin kernel matches the filter (" + describe(f) + ")"};
      for (const KernelGate& g : rep.kernels)
        if (g.skipped) std::cout << "skipped " << g.kernel->name << ": " << g.skip_reason << "\n";
    } else {
      std::printf("qgate gate: seed 0x%llx\n", static_cast<unsigned long long>(seed));
      std::fflush(stdout);
      rep = run_gate(f, opt, progress);
      if (tty) std::fprintf(stderr, "\r%-70s\r", "");
      if (rep.kernels.empty()) throw Failure{"no registered kernel matches the filter (" + describe(f) + ")"};
    }
    // A kernel the run reached (not skipped) on which no property was evaluated proves
    // nothing: the filter left nothing to check, which is a usage error, never a pass.
    size_t empty = 0;
    const KernelInfo* first_empty = nullptr;
    for (const KernelGate& g : rep.kernels)
      if (!g.skipped && g.runs.empty()) first_empty = first_empty ? first_empty : g.kernel, ++empty;
    if (empty)
      throw Failure{"nothing evaluated: no property of the filter (" + describe(f) + ") applies to " +
                        std::to_string(empty) + " selected kernel(s), e.g. " + first_empty->name +
                        " (each property applies to the ops properties/properties.inc names)",
                    kExitUsage};
    std::cout << format_matrix(rep) << format_failures(rep);
    if (plugins) std::cout << plugins->verdicts(rep);
    if (!a->report.empty()) {
      report::Context ctx;
      ctx.seed = seed;
      ctx.input = input;
      ctx.command = "qgate gate";
      const auto add = [&](const char* opt_name, const std::string& v) {
        if (!v.empty()) ctx.command += std::string(" ") + opt_name + " " + shell_quote(v);
      };
      add("--backend", f.backend), add("--format", f.format), add("--op", f.op), add("--kernel", f.kernel);
      add("--property", f.property), add("--gguf", a->gguf), add("--tensor", a->tensor), add("--rows", a->rows);
      add("--mutant", a->mutant);
      for (const std::string& p : a->plugins) add("--plugin", p);
      for (const std::string& kv : a->plugin_args) add("--plugin-arg", kv);
      if (!a->plugins.empty() && a->plugin_timeout != 10) {
        char t[32];
        std::snprintf(t, sizeof t, "%g", a->plugin_timeout);
        add("--plugin-timeout", t);
      }
      if (a->seed) add("--seed", std::to_string(a->seed));
      report::Written w;
      if (tty) std::fprintf(stderr, "writing the report...");
      const std::string e = report::write_report(a->report, rep, ctx, w);
      if (tty) std::fprintf(stderr, "\r%-30s\r", "");
      if (!e.empty()) throw Failure{"report: " + e, kExitIo};
      std::cout << "report: " << w.junit << ", " << w.markdown << ", " << w.heatmaps.size() << " heat map(s)\n";
    }
    if (!rep.pass()) throw Failure{"gate FAILED", 1};
    // Every selected kernel skipped (its backend, device or plugin unable to run it here):
    // nothing was evaluated, so this is no pass.
    bool ran = false;
    for (const KernelGate& g : rep.kernels) ran |= !g.skipped;
    if (!ran && !rep.kernels.empty())
      throw Failure{"gate SKIPPED: every selected kernel was skipped here (the reasons above)", kExitSkipped};
    std::cout << "gate PASSED\n";
  });
}

}  // namespace qgate::cli
