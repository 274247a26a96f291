// qgate bench: speed, kept out of the tests. fp64 oracle dequantization throughput per
// format, the reference contraction at K = N = 4096, and the CPU kernels beside it.
// Median of --reps runs, wall clock; prints a Markdown table (docs/PERFORMANCE.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "core/guarded.hpp"
#include "oracles/ops/contract.hpp"
#include "properties/catalog.hpp"
#include "tools/qgate/commands.hpp"
#include "kernels/registry.hpp"

namespace qgate::cli {
namespace {

template <class F>
double median_seconds(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

Case make_case(const FormatInfo& f, int64_t m, int64_t n, int64_t k) {
  CaseSpec s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.group = 128;
  Case c;
  const std::string err = materialize(f, s, true, c);
  if (!err.empty()) throw Failure{"bench: " + err, 1};
  return c;
}

}  // namespace

void add_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Measure oracle and CPU kernel speed (never part of the tests)");
  auto n = std::make_shared<int64_t>(4096);
  auto k = std::make_shared<int64_t>(4096);
  auto m_gemm = std::make_shared<int64_t>(8);
  auto reps = std::make_shared<int>(3);
  auto fmt = std::make_shared<std::string>();
  cmd->add_option("--n", *n, "weight rows")->check(CLI::Range(8, 1 << 16));
  cmd->add_option("--k", *k, "weight columns (a multiple of 256)")->check(CLI::Range(256, 1 << 16));
  cmd->add_option("--m-gemm", *m_gemm, "activation rows for the GEMM line")->check(CLI::Range(2, 256));
  cmd->add_option("--reps", *reps, "runs per measurement (median)")->check(CLI::Range(1, 50));
  cmd->add_option("--format", *fmt, "only this format (--backend vulkan: a comma-separated list)");
  auto backend = std::make_shared<std::string>("oracle");
  auto shapes = std::make_shared<std::string>("14336x4096,4096x14336");
  auto cache_mib = std::make_shared<double>(256);
  cmd->add_option("--backend", *backend,
                  "oracle: the fp64 oracle and CPU kernels; vulkan: Vulkan mat-vec vs a read stream; "
                  "cuda: CUDA mat-vec vs a read stream and GEMM vs an int8 tile-product ceiling")
      ->check(CLI::IsMember({"oracle", "vulkan", "cuda"}));
  auto m_list = std::make_shared<std::string>("512,2048,4096");
  cmd->add_option("--m", *m_list, "--backend cuda: GEMM M list (default 512,2048,4096)");
  cmd->add_option("--shapes", *shapes, "--backend vulkan: NxK list (default 14336x4096,4096x14336)");
  cmd->add_option("--cache-mib", *cache_mib, "--backend vulkan: weight copies rotated to total at least this (MiB)")
      ->check(CLI::Range(1.0, 65536.0));
  auto plugins = std::make_shared<std::vector<std::string>>();
  auto plugin_args = std::make_shared<std::vector<std::string>>();
  auto plugin_timeout = std::make_shared<double>(120);
  cmd->add_option("--plugin", *plugins,
                  "--backend vulkan: also time this plugin library's Vulkan matmul kernels of the same formats "
                  "(repeatable; docs/PLUGINS.md, \"Benchmarks\")");
  cmd->add_option("--plugin-arg", *plugin_args, "KEY=VALUE handed to every --plugin library (repeatable)");
  cmd->add_option("--plugin-timeout", *plugin_timeout, "watchdog: seconds one plugin launch may take (default 120)")
      ->check(CLI::Range(1.0, 3600.0));
  cmd->callback([=] {
    const auto args = parse_plugin_args(*plugin_args, !plugins->empty());
    if (!plugins->empty() && *backend != "vulkan") throw Failure{"--plugin: only --backend vulkan times plugin kernels"};
    if (*backend == "cuda") {
      run_bench_cuda(fmt->empty() ? "q4_0,q8_0,q4_K,q6_K,mxfp4,iq4_xs,q5_K" : *fmt,
                     shapes->empty() || *shapes == "14336x4096,4096x14336" ? "32768x16384" : *shapes, *m_list,
                     std::max(*reps, 5), std::max(*cache_mib, 1024.0));
      return;
    }
    if (*backend == "vulkan") {
      run_bench_vulkan(fmt->empty() ? "q4_K,q8_0,q6_K" : *fmt, *shapes, std::max(*reps, 5), *cache_mib, *plugins, args,
                       *plugin_timeout);
      return;
    }
    if (*k % 256) throw Failure{"--k must be a multiple of 256"};
    std::printf("qgate bench: N=%lld K=%lld, median of %d, wall clock, 1 thread\n\n", static_cast<long long>(*n),
                static_cast<long long>(*k), *reps);
    std::printf("| format | oracle dequant (Melem/s) | oracle matvec M=1 (s) | oracle GEMM M=%lld (s) | CPU dequant f32 (Melem/s) | CPU matvec M=1 f32-act (ms) | CPU matvec M=1 quant-act (ms) |\n",
                static_cast<long long>(*m_gemm));
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const FormatInfo* f : all_formats()) {
      if (f->is_activation) continue;
      if (!fmt->empty() && find_format(*fmt) != f) continue;
      const Case c = make_case(*f, *m_gemm, *n, *k);
      std::vector<double> v, mag;
      const double t_deq = median_seconds(*reps, [&] { (void)decode_tensor(c.w, v, mag); });
      Reference ref;
      const Precision p{ActQuant::none, 23, Depth{}, OutType::f32};
      const double t_mv = median_seconds(*reps, [&] { (void)matmul_ref(c.w, c.x.data(), 1, p, ref); });
      const double t_gemm = median_seconds(1, [&] { (void)matmul_ref(c.w, c.x.data(), *m_gemm, p, ref); });
      double t_kdeq = 0, t_kmv = 0, t_kq = 0;
      GuardedBuffer deq(*n * *k, OutType::f32), y(*n, OutType::f32);
      const LaunchArgs to_deq = LaunchArgs::weight(c.w, nullptr, 0, deq), to_y = LaunchArgs::weight(c.w, c.x.data(), 1, y);
      for (const KernelInfo& kk : all_kernels()) {
        if (kk.format != f->id || kk.backend != BackendId::cpu) continue;
        if (kk.op == Op::dequant && kk.prec.out == OutType::f32)
          t_kdeq = median_seconds(*reps, [&] { kk.launch(kk, to_deq); });
        else if (kk.op == Op::matmul && kk.max_m > 0 && kk.prec.act == ActQuant::none)
          t_kmv = median_seconds(*reps, [&] { kk.launch(kk, to_y); });
        else if (kk.op == Op::matmul && kk.max_m > 0 && (!kk.accepts || !kk.accepts(c.w)))
          t_kq = median_seconds(*reps, [&] { kk.launch(kk, to_y); });
      }
      const double elems = static_cast<double>(*n) * static_cast<double>(*k);
      std::printf("| %s | %.1f | %.3f | %.2f | %.1f | %.2f | %s |\n", std::string(f->name).c_str(), elems / t_deq / 1e6,
                  t_mv, t_gemm, t_kdeq > 0 ? elems / t_kdeq / 1e6 : 0.0, t_kmv * 1e3,
                  t_kq > 0 ? std::to_string(t_kq * 1e3).substr(0, 6).c_str() : "-");
      std::fflush(stdout);
    }
  });
}

}  // namespace qgate::cli
