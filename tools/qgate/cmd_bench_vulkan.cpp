// qgate bench --backend vulkan: decode mat-vec (M = 1) of every registered Vulkan mat-vec
// kernel of the chosen formats, on device-local weights rotated over enough copies to
// stay out of the last-level cache, timed by device timestamps, stated as a fraction of
// a read stream measured in the same run. Prints a Markdown table (docs/VULKAN.md). With
// --plugin, a plugin's Vulkan matmul kernels of the same formats are timed beside them (an
// engine's own mul_mat, e.g. ggml-vulkan's through the ggml adapter: the peer figure), by the
// kernel's own clock over as many weight copies as qgate's kernels rotate (docs/PLUGINS.md).
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "properties/catalog.hpp"
#include "properties/plugin_host.hpp"
#include "tools/qgate/bench_lists.hpp"
#include "tools/qgate/commands.hpp"

#ifdef QGATE_HAVE_VULKAN
#include "kernels/vulkan/bench_vk.hpp"
#include "kernels/registry.hpp"
#endif

namespace qgate::cli {

namespace {

// The plugin kernels of format f: each launch computes `copies` mat-vecs over copies of the
// weight and reports the kernel's own time for them; the median over reps, per mat-vec.
void bench_plugin_kernels(const std::vector<const KernelInfo*>& kernels, const FormatInfo& f, const Case& c, int copies,
                          int reps, double ceiling) {
  const double mb = static_cast<double>(c.w.bytes.size()) / 1e6;
  const std::string shape = std::to_string(c.w.n) + "x" + std::to_string(c.w.k);
  for (const KernelInfo* kk : kernels) {
    if (kk->backend != BackendId::vulkan || kk->format != f.id || kk->op != Op::matmul) continue;
    const std::string head = "| " + std::string(f.name) + " | " + shape + " | " + kk->name + " (plugin) | ";
    const Availability ka = probe_kernel(*kk);
    if (!ka.available) {
      std::printf("%s%.1f | skipped: %s | | | | |\n", head.c_str(), mb, ka.reason.c_str());
      continue;
    }
    std::vector<double> per;
    std::string why;
    for (int r = 0; r < reps && why.empty(); ++r) {
      double ns = -1;
      why = plugin_bench(*kk, c.w, c.x.data(), copies, ns);
      if (why.empty() && !(ns > 0)) why = "the kernel does not time itself (qgate_plugin_v2_call::elapsed_ns)";
      per.push_back(ns / copies);
    }
    if (!why.empty()) {
      std::printf("%s%.1f | not benchmarked: %s | | | | |\n", head.c_str(), mb, why.c_str());
      continue;
    }
    std::sort(per.begin(), per.end());
    const double t = per[per.size() / 2], gbs = static_cast<double>(c.w.bytes.size()) / t;
    std::printf("%s%.1f | | | | %.1f | %.0f%% |\n", head.c_str(), mb, t / 1e3, 100.0 * gbs / ceiling);
    std::fflush(stdout);
  }
}

}  // namespace

void run_bench_vulkan(const std::string& formats, const std::string& shapes, int reps, double cache_mib,
                      const std::vector<std::string>& plugins, const std::vector<std::pair<std::string, std::string>>& args,
                      double plugin_timeout) {
#ifndef QGATE_HAVE_VULKAN
  throw Failure{"bench --backend vulkan: the Vulkan backend is not built in this configuration", 77};
#else
  const Availability a = probe_backend(BackendId::vulkan);
  if (!a.available) throw Failure{"bench --backend vulkan skipped: " + a.reason, 77};
  const std::vector<std::pair<int64_t, int64_t>> nk = parse_shapes(shapes, 1);
  const std::vector<const FormatInfo*> fmts = parse_formats(formats);
  PluginHost host(plugin_timeout);
  for (const std::string& lib : plugins) host.load(lib, args);
  for (const auto& [what, why] : host.unloaded()) throw Failure{"bench --plugin: " + what + ": " + why, 1};
  vkk::BenchTiming stream;
  const size_t stream_bytes = size_t{1} << 30;
  if (std::string e = vkk::bench_stream(stream_bytes, reps * 4, stream); !e.empty()) throw Failure{"bench: " + e, 1};
  const double ceiling = static_cast<double>(stream_bytes) / stream.median_ns;  // GB/s
  std::printf("qgate bench --backend vulkan: %s\n", a.reason.c_str());
  std::printf("read stream (1 GiB, 16-byte loads, median of %d): %.1f GB/s = the ceiling below\n", stream.samples, ceiling);
  std::printf("mat-vec M = 1, weights rotated over copies totalling >= %.0f MiB (out of cache), device timestamps, median\n\n",
              cache_mib);
  std::vector<std::string> stats;
  std::printf("Each dispatch after a barrier (a chain of dependent mat-vecs, each timed alone), and in the last two\n"
              "columns the same dispatches without barriers (independent mat-vecs, the chain timed as a whole)%s\n\n",
              plugins.empty() ? "" : ";\na plugin kernel's row: one launch computing the mat-vec over every weight copy, timed by the\n"
              "kernel itself (the ggml adapter: one ggml graph of independent mul_mats, the host's wall time of\n"
              "ggml_backend_graph_compute, submission and fence wait included), divided by the copies");
  std::printf("| format | N x K | kernel | weight MB | time (us) | GB/s | %% of stream | independent: time (us) | %% of stream |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  for (const FormatInfo* f : fmts)
    for (auto [n, k] : nk) {
      CaseSpec s;
      s.m = 1;
      s.n = n;
      s.k = k;
      Case c;
      if (std::string e = materialize(*f, s, true, c); !e.empty()) throw Failure{"bench: " + e, 1};
      const double mb = static_cast<double>(c.w.bytes.size()) / 1e6;
      const int copies = std::clamp(static_cast<int>(cache_mib * 1.048576 / mb) + 1, 2, 1000 / (reps + 1));
      {  // the same read stream over buffers of the weights' size, rotated and timed alike:
         // what launch, ramp-up and drain leave of the ceiling at this size
        vkk::BenchTiming st, si;
        const size_t sb = (c.w.bytes.size() + 15) / 16 * 16;
        if (std::string e = vkk::bench_stream(sb, reps, st, copies); !e.empty()) throw Failure{"bench: " + e, 1};
        if (std::string e = vkk::bench_stream(sb, reps, si, copies, true); !e.empty()) throw Failure{"bench: " + e, 1};
        const double sg = static_cast<double>(sb) / st.median_ns, sgi = static_cast<double>(sb) / si.median_ns;
        std::printf("| %s | %lldx%lld | (read stream of the same bytes) | %.1f | %.1f | %.0f | %.0f%% | %.1f | %.0f%% |\n",
                    std::string(f->name).c_str(), static_cast<long long>(n), static_cast<long long>(k), mb,
                    st.median_ns / 1e3, sg, 100.0 * sg / ceiling, si.median_ns / 1e3, 100.0 * sgi / ceiling);
      }
      for (const KernelInfo& kk : all_kernels()) {
        if (kk.backend != BackendId::vulkan || kk.format != f->id || kk.op != Op::matmul || kk.max_m == 0) continue;
        if (const char* why = vkk::bench_unsupported(kk)) {
          std::printf("| %s | %lldx%lld | %s | %.1f | not benchmarked: %s | | | | |\n", std::string(f->name).c_str(),
                      static_cast<long long>(n), static_cast<long long>(k), kk.name.c_str(), mb, why);
          continue;
        }
        const Availability ka = probe_kernel(kk);
        if (!ka.available) {
          std::printf("| %s | %lldx%lld | %s | %.1f | skipped: %s | | | | |\n", std::string(f->name).c_str(),
                      static_cast<long long>(n), static_cast<long long>(k), kk.name.c_str(), mb, ka.reason.c_str());
          continue;
        }
        vkk::BenchTiming t, ti;
        if (std::string e = vkk::bench_matvec(kk, c.w, c.x.data(), copies, reps, t); !e.empty())
          throw Failure{"bench " + kk.name + ": " + e, 1};
        if (std::string e = vkk::bench_matvec(kk, c.w, c.x.data(), copies, reps, ti, true); !e.empty())
          throw Failure{"bench " + kk.name + ": " + e, 1};
        const double gbs = static_cast<double>(c.w.bytes.size()) / t.median_ns;
        const double gbi = static_cast<double>(c.w.bytes.size()) / ti.median_ns;
        if (n == nk.front().first && k == nk.front().second) stats.push_back(kk.name + ": " + t.stats);
        std::printf("| %s | %lldx%lld | %s | %.1f | %.1f | %.0f | %.0f%% | %.1f | %.0f%% |\n", std::string(f->name).c_str(),
                    static_cast<long long>(n), static_cast<long long>(k), kk.name.c_str(), mb, t.median_ns / 1e3, gbs,
                    100.0 * gbs / ceiling, ti.median_ns / 1e3, 100.0 * gbi / ceiling);
        std::fflush(stdout);
      }
      bench_plugin_kernels(host.kernels(), *f, c, copies, reps, ceiling);
    }
  std::printf("\npipeline statistics (the driver's compiler):\n");
  for (const std::string& s : stats) std::printf("  %s\n", s.c_str());
#endif
}

}  // namespace qgate::cli
