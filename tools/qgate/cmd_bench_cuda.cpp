// qgate bench --backend cuda: the decode mat-vec at M = 1 as a fraction of a read stream,
// and the prefill GEMM in int8 TOPS as a fraction of a register-resident int8 tile-product
// loop, both ceilings measured in the same run; beside the GEMM, dequantize-to-f16 then
// cuBLAS f16 GEMM on the same shape where cuBLAS loads. Prints Markdown tables
// (docs/PERFORMANCE.md, CUDA section). Never part of the tests.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "tools/qgate/bench_lists.hpp"
#include "tools/qgate/commands.hpp"

#ifdef QGATE_HAVE_CUDA
#include "kernels/cuda/bench_cuda.hpp"
#include "kernels/registry.hpp"
#endif

namespace qgate::cli {

void run_bench_cuda(const std::string& formats, const std::string& shapes, const std::string& ms, int reps,
                    double cache_mib) {
#ifndef QGATE_HAVE_CUDA
  (void)formats, (void)shapes, (void)ms, (void)reps, (void)cache_mib;
  throw Failure{"bench --backend cuda: the CUDA backend is not built in this configuration", 77};
#else
  const Availability av = probe_backend(BackendId::cuda);
  if (!av.available) throw Failure{"bench --backend cuda skipped: " + av.reason, 77};
  const std::vector<std::pair<int64_t, int64_t>> nk = parse_shapes(shapes, 64);
  std::vector<int64_t> mlist;
  for (const std::string& item : split_list(ms)) {
    const long long m = std::atoll(item.c_str());
    if (m < 1 || m > 16384) throw Failure{"--m: '" + item + "' is not an M in 1..16384"};
    mlist.push_back(m);
  }
  const std::vector<const FormatInfo*> fmts = parse_formats(formats);
  namespace cb = cuk::bench;
  cb::Timing st, mt;
  const size_t stream_bytes = size_t{2} << 30;
  if (std::string e = cb::stream_ceiling(stream_bytes, reps * 4, st); !e.empty()) throw Failure{"bench: " + e, 1};
  double mma_ops = 0;
  if (std::string e = cb::mma_ceiling(reps * 2, mt, mma_ops); !e.empty()) throw Failure{"bench: " + e, 1};
  const double stream_gbs = double(stream_bytes) / (st.median_ms * 1e6);
  const double mma_tops = mma_ops / (mt.median_ms * 1e9);
  std::printf("qgate bench --backend cuda: %s\n", av.reason.c_str());
  std::printf("read stream (2 GiB, 16-byte loads, median of %d): %.0f GB/s = the mat-vec ceiling\n", st.samples,
              stream_gbs);
  std::printf("int8 tile products (mma m16n8k32 from registers, 4 chains per group, median of %d): %.0f TOPS = the GEMM ceiling\n",
              mt.samples, mma_tops);
  std::printf("weights: pseudo-random bytes filled on the device; device events around each launch, warm-up dropped, median\n\n");

  std::printf("### decode mat-vec, M = 1 (weights rotated over copies totalling >= %.0f MiB)\n\n", cache_mib);
  std::printf("| format | N x K | kernel | weight MB | time (us) | GB/s | %% of stream | stream of the same bytes (GB/s) | %% of it |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  for (const FormatInfo* f : fmts)
    for (auto [n, k] : nk)
      for (const KernelInfo& kk : all_kernels()) {
        if (kk.backend != BackendId::cuda || kk.format != f->id || kk.op != Op::matmul || kk.max_m == 0) continue;
        cb::Timing t;
        size_t wb = 0;
        // copies: at least two, and enough to total cache_mib
        const double mb1 = double(n) * double(k) * 1.1 / 1e6;
        const int copies = std::max(2, int(cache_mib * 1.048576 / mb1) + 1);
        if (std::string e = cb::time_kernel(kk, 1, n, k, copies, reps * 4, t, wb); !e.empty())
          throw Failure{"bench " + kk.name + ": " + e, 1};
        // The read stream over as many bytes as the weight (its start-up and tail weigh as much
        // there as in the mat-vec): beside the ceiling, not instead of it.
        cb::Timing ts;
        if (std::string e = cb::stream_ceiling(wb, reps * 4, ts); !e.empty()) throw Failure{"bench: " + e, 1};
        const double gbs = double(wb) / (t.median_ms * 1e6), same = double(wb & ~size_t{15}) / (ts.median_ms * 1e6);
        std::printf("| %s | %lldx%lld | %s | %.1f | %.1f | %.0f | %.0f%% | %.0f | %.0f%% |\n", std::string(f->name).c_str(),
                    static_cast<long long>(n), static_cast<long long>(k), kk.name.c_str(), double(wb) / 1e6,
                    t.median_ms * 1e3, gbs, 100.0 * gbs / stream_gbs, same, 100.0 * gbs / same);
        std::fflush(stdout);
      }

  std::printf("\n### prefill GEMM (int8 TOPS = 2 M N K / time)\n\n");
  std::printf("| format | M | N x K | kernel | time (ms) | TOPS | %% of mma ceiling | dequant to f16 (ms) | cuBLAS f16 GEMM (ms) | cuBLAS TOPS |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::string blas_why;
  for (const KernelInfo& kk : all_kernels()) {
    if (kk.backend != BackendId::cuda || kk.op != Op::matmul || kk.max_m != 0) continue;
    bool wanted = false;
    for (const FormatInfo* f : fmts) wanted |= f->id == kk.format;
    if (!wanted && kk.format != FormatId::gptq_int4) continue;
    for (auto [n, k] : nk)
      for (int64_t m : mlist) {
        cb::Timing t, bt, dt;
        size_t wb = 0;
        if (std::string e = cb::time_kernel(kk, m, n, k, 1, reps, t, wb); !e.empty())
          throw Failure{"bench " + kk.name + ": " + e, 1};
        const double ops = 2.0 * double(m) * double(n) * double(k);
        std::string why;
        if (std::string e = cb::time_cublas_f16(kk.format, m, n, k, reps, bt, dt, why); !e.empty())
          throw Failure{"bench cuBLAS: " + e, 1};
        if (!why.empty()) blas_why = why;
        char blas[96] = "n/a", btops[32] = "n/a", deq[32] = "n/a";
        if (why.empty() && bt.samples) {
          std::snprintf(blas, sizeof blas, "%.3f", bt.median_ms);
          std::snprintf(btops, sizeof btops, "%.0f", ops / (bt.median_ms * 1e9));
        }
        if (dt.samples) std::snprintf(deq, sizeof deq, "%.3f", dt.median_ms);
        std::printf("| %s | %lld | %lldx%lld | %s | %.3f | %.1f | %.0f%% | %s | %s | %s |\n",
                    std::string(format_info(kk.format).name).c_str(), static_cast<long long>(m),
                    static_cast<long long>(n), static_cast<long long>(k), kk.name.c_str(), t.median_ms,
                    ops / (t.median_ms * 1e9), 100.0 * ops / (t.median_ms * 1e9) / mma_tops, deq, blas, btops);
        std::fflush(stdout);
      }
  }
  if (!blas_why.empty()) std::printf("\ncuBLAS: %s\n", blas_why.c_str());
#endif
}

}  // namespace qgate::cli
