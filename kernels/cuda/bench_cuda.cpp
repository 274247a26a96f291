// Host side of the CUDA benchmarks (bench_cuda.hpp): buffers, the registered kernels'
// launchers, the ceilings, and dequantize-then-cuBLAS for comparison.
#include "kernels/cuda/bench_cuda.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cuda/cuda_runtime.hpp"
#include "kernels/cuda/cuda_code.hpp"
#include "oracles/formats/gptq.hpp"
#include "oracles/formats/geometry.hpp"
#include "kernels/registry.hpp"

namespace qgate::cuk::bench {
namespace {

struct Ctx {
  cu::Runtime* rt = nullptr;
  const IqTables* t = nullptr;
  std::string err;
};
Ctx ctx() {
  Ctx c;
  c.rt = cu::Runtime::instance(c.err);
  if (c.rt) c.t = device_tables(c.err);
  return c;
}

// Bytes of an n x k weight in format f (gptq: the container of group 128).
size_t weight_bytes_of(FormatId f, int64_t n, int64_t k, gptq::Layout* lay) {
  const FormatInfo& fi = format_info(f);
  if (fi.tensor_level()) {
    gptq::Params p;
    p.n = n;
    p.k = k;
    p.group_size = 128;
    *lay = gptq::layout(p);
    return lay->total;
  }
  return size_t(n) * size_t(k / fi.block_elems) * size_t(fi.block_bytes);
}

std::string quantized_acts(ActQuant a, int64_t m, int64_t k, cu::DeviceBuffer& xq, cu::Runtime& rt) {
  cu::DeviceBuffer xf;
  if (auto e = xf.alloc(size_t(m * k) * 4); !e.empty()) return e;
  std::vector<float> x(size_t(m * k));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int((i * 2654435761u) % 2001) - 1000) / 1000.f;
  if (auto e = xf.upload(x.data(), x.size() * 4); !e.empty()) return e;
  if (a == ActQuant::none) {  // the float formats' mat-vec reads f32 activations
    if (auto e = xq.alloc(x.size() * 4); !e.empty()) return e;
    return xq.upload(x.data(), x.size() * 4);
  }
  const size_t blk = a == ActQuant::q8_1 ? block::q8_1::bytes : block::q8_K::bytes;
  const size_t per = a == ActQuant::q8_1 ? block::q8_1::elems : block::q8_K::elems;
  if (auto e = xq.alloc(size_t(m) * size_t(k / per) * blk); !e.empty()) return e;
  if (a == ActQuant::q8_1) quantize_q8_1(static_cast<const float*>(xf.ptr()), m, k, xq.bytes_ptr(), rt.stream());
  else quantize_q8_K(static_cast<const float*>(xf.ptr()), m, k, xq.bytes_ptr(), rt.stream());
  return rt.sync("activation quantization");
}

}  // namespace

std::string stream_ceiling(size_t bytes, int reps, Timing& t) {
  Ctx c = ctx();
  if (!c.rt) return c.err;
  cu::DeviceBuffer b, sink;
  if (auto e = b.alloc(bytes); !e.empty()) return e;
  if (auto e = sink.alloc(64); !e.empty()) return e;
  fill_bytes(b.ptr(), bytes, 7, c.rt->stream());
  return time_each([&](int) { read_stream(b.ptr(), bytes, static_cast<unsigned*>(sink.ptr()), c.rt->stream()); },
                   reps, t, c.rt->stream());
}

std::string mma_ceiling(int reps, Timing& t, double& ops) {
  Ctx c = ctx();
  if (!c.rt) return c.err;
  cu::DeviceBuffer sink;
  if (auto e = sink.alloc(64); !e.empty()) return e;
  const int blocks = std::max(1, c.rt->info().sms) * 8, threads = 256, iters = 4096;
  ops = double(blocks) * (threads / 32) * iters * 4 * (2.0 * 16 * 8 * 32);
  return time_each([&](int) { mma_loop(blocks, threads, iters, static_cast<int*>(sink.ptr()), c.rt->stream()); }, reps,
                   t, c.rt->stream());
}

std::string time_kernel(const KernelInfo& k, int64_t m, int64_t n, int64_t kk, int copies, int reps, Timing& t,
                        size_t& weight_bytes) {
  Ctx c = ctx();
  if (!c.rt) return c.err;
  if (!c.t) return c.err;
  const Code& code = *static_cast<const Code*>(k.device_code);
  gptq::Layout lay;
  weight_bytes = weight_bytes_of(k.format, n, kk, &lay);
  std::vector<cu::DeviceBuffer> w(size_t(std::max(1, copies)));
  for (size_t i = 0; i < w.size(); ++i) {
    if (auto e = w[i].alloc(weight_bytes); !e.empty()) return e;
    fill_bytes(w[i].ptr(), weight_bytes, uint32_t(i * 77 + 1), c.rt->stream());
    if (format_info(k.format).tensor_level()) {  // gptq: a valid header (group 128) over the random arrays
      uint32_t h[8] = {0, 0, uint32_t(kk), uint32_t(n), 128, 0, 0, 0};
      std::memcpy(h, gptq::kMagic, 8);
      if (auto e = c.rt->sync("fill"); !e.empty()) return e;
      if (auto e = w[i].upload(h, sizeof h); !e.empty()) return e;
    }
  }
  cu::DeviceBuffer xq, xp, y, part;
  if (auto e = quantized_acts(k.prec.act, m, kk, xq, *c.rt); !e.empty()) return e;
  if (auto e = y.alloc(size_t(m * n) * 4); !e.empty()) return e;
  if (k.max_m > 0) {  // decode mat-vec
    return time_each(
        [&](int i) {
          code.matvec(w[size_t(i) % w.size()].bytes_ptr(), xq.bytes_ptr(), static_cast<float*>(y.ptr()), n, kk,
                      int(m), n, *c.t, c.rt->stream());
        },
        reps, t, c.rt->stream());
  }
  GemmArgs a;
  a.n = n;
  a.k = kk;
  a.m = m;
  a.ldy = n;
  a.t = *c.t;
  a.xq = xq.bytes_ptr();
  if (auto e = xp.alloc(size_t(gemm_xpack_bytes(m, kk))); !e.empty()) return e;
  a.xpack = xp.bytes_ptr();
  a.y = static_cast<float*>(y.ptr());
  a.group = 128;
  gemm_plan(a);
  if (a.splits > 1) {
    if (auto e = part.alloc(size_t(a.splits * m * n) * 4); !e.empty()) return e;
    a.partial = static_cast<float*>(part.ptr());
  }
  return time_each(
      [&](int i) {
        GemmArgs b = a;
        b.w = w[size_t(i) % w.size()].bytes_ptr();
        if (code.gptq) {  // random words: zeros and scales are any nibbles / fp16 bits
          b.qweight = reinterpret_cast<const uint32_t*>(b.w + lay.qweight);
          b.qzeros = reinterpret_cast<const uint32_t*>(b.w + lay.qzeros);
          b.scales = reinterpret_cast<const uint16_t*>(b.w + lay.scales);
        }
        code.gemm(b, c.rt->stream());
      },
      reps, t, c.rt->stream());
}

// cuBLAS by name from the toolkit's shared library (cublas_api.h, CUDA 13): the handful of
// entry points and constant values the comparison needs.
std::string time_cublas_f16(FormatId f, int64_t m, int64_t n, int64_t kk, int reps, Timing& gemm, Timing& dequant,
                            std::string& why) {
  using Create = int (*)(void**);
  using SetStream = int (*)(void*, void*);
  using GemmEx = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                         const void*, void*, int, int, int, int);
  void* lib = nullptr;
  for (const char* name : {"libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.13", "libcublas.so"})
    if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) {
    const char* e = dlerror();
    why = std::string("cuBLAS not loadable here: ") + (e ? e : "libcublas.so.13 not found");
    return {};
  }
  auto create = reinterpret_cast<Create>(dlsym(lib, "cublasCreate_v2"));
  auto set_stream = reinterpret_cast<SetStream>(dlsym(lib, "cublasSetStream_v2"));
  auto gemm_ex = reinterpret_cast<GemmEx>(dlsym(lib, "cublasGemmEx"));
  if (!create || !set_stream || !gemm_ex) {
    why = "cuBLAS loaded but cublasCreate_v2 / cublasSetStream_v2 / cublasGemmEx missing";
    return {};
  }
  Ctx c = ctx();
  if (!c.rt) return c.err;
  void* h = nullptr;
  if (int st = create(&h); st != 0) {
    why = "cublasCreate failed (status " + std::to_string(st) + ")";
    return {};
  }
  set_stream(h, c.rt->stream());
  cu::DeviceBuffer wq, w16, x16, y;
  gptq::Layout lay;
  const size_t wb = weight_bytes_of(f, n, kk, &lay);
  if (auto e = wq.alloc(wb); !e.empty()) return e;
  if (auto e = w16.alloc(size_t(n * kk) * 2); !e.empty()) return e;
  if (auto e = x16.alloc(size_t(m * kk) * 2); !e.empty()) return e;
  if (auto e = y.alloc(size_t(m * n) * 4); !e.empty()) return e;
  fill_bytes(wq.ptr(), wb, 3, c.rt->stream());
  // cuBLAS gets finite pseudo-random f16 operands (|v| < 1): zeros would let the GPU run
  // at a lower power, hence faster, than real data does.
  fill_f16(static_cast<uint16_t*>(w16.ptr()), size_t(n * kk), 11, c.rt->stream());
  fill_f16(static_cast<uint16_t*>(x16.ptr()), size_t(m * kk), 13, c.rt->stream());
  // Our dequantization of the same weight to f16 (into a scratch copy: random bytes may
  // decode to NaN/Inf), timed on its own; gptq_int4 has no CUDA dequant kernel.
  dequant = Timing{};
  if (const KernelInfo* dk = find_kernel("dequant_" + std::string(format_info(f).name) + "_f16_cuda")) {
    const Code& dc = *static_cast<const Code*>(dk->device_code);
    cu::DeviceBuffer scratch;
    if (auto e = scratch.alloc(size_t(n * kk) * 2); !e.empty()) return e;
    if (auto e = time_each([&](int) { dc.dequant(wq.bytes_ptr(), n, kk, scratch.ptr(), OutType::f16, *c.t, c.rt->stream()); },
                           reps, dequant, c.rt->stream());
        !e.empty())
      return e;
  }
  const float alpha = 1.f, beta = 0.f;
  constexpr int kOpN = 0, kOpT = 1, kR16F = 2, kR32F = 0, kCompute32F = 68, kAlgoDefault = -1;
  std::string err;
  int status = 0;
  err = time_each(
      [&](int) {
        // column-major: C (n x m) = W^T (n x k, W stored k-major per row) * X (k x m)
        status |= gemm_ex(h, kOpT, kOpN, int(n), int(m), int(kk), &alpha, w16.ptr(), kR16F, int(kk), x16.ptr(), kR16F,
                          int(kk), &beta, y.ptr(), kR32F, int(n), kCompute32F, kAlgoDefault);
      },
      reps, gemm, c.rt->stream());
  if (status) why = "cublasGemmEx returned an error status";
  (void)kOpN;
  return err;
}

}  // namespace qgate::cuk::bench
