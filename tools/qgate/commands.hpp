// The qgate subcommands. Each lives in its own cmd_<name>.cpp and registers itself on the
// top-level app with add_<name>(): the subcommand, its --help text, its options and a
// callback that does the work. Callbacks report failure by throwing Failure; main() prints
// it as "qgate: <message>" and exits with its code.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace qgate::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitUsage = 2;  // bad usage or bad input (unknown format, truncated data)
inline constexpr int kExitIo = 1;     // the environment failed us (stdin/stdout errors)
inline constexpr int kExitSkipped = 77;  // nothing could run here (every backend or device absent): never a pass

struct Failure {
  std::string message;
  int exit_code = kExitUsage;
};

void add_list(CLI::App& app);
void add_dequant(CLI::App& app);
void add_gate(CLI::App& app);
void add_repro(CLI::App& app);
void add_mutants(CLI::App& app);
void add_bench(CLI::App& app);
void add_probe(CLI::App& app);
void add_gguf(CLI::App& app);
void add_census(CLI::App& app);
// A text table (cmd_list.cpp): columns sized to their widest cell; columns from left_cols
// on, except the last, right-aligned.
void print_table(const std::vector<std::vector<std::string>>& rows, size_t left_cols = SIZE_MAX);
// --plugin-arg KEY=VALUE items as pairs, in order (cmd_gate.cpp); a malformed item, or items
// without --plugin, are a Failure.
std::vector<std::pair<std::string, std::string>> parse_plugin_args(const std::vector<std::string>& items,
                                                                   bool have_plugins);
// qgate bench --backend vulkan (cmd_bench_vulkan.cpp): qgate's Vulkan mat-vecs and, from the
// plugin libraries (loaded with args), every Vulkan matmul kernel of the same formats.
void run_bench_vulkan(const std::string& formats, const std::string& shapes, int reps, double cache_mib,
                      const std::vector<std::string>& plugins, const std::vector<std::pair<std::string, std::string>>& args,
                      double plugin_timeout);
// qgate bench --backend cuda (cmd_bench_cuda.cpp).
void run_bench_cuda(const std::string& formats, const std::string& shapes, const std::string& ms, int reps,
                    double cache_mib);

}  // namespace qgate::cli
