// The gate+up pair on CUDA (Op::gate_up, kernels/gate_up.inc): one device
// quantization of the activations (quantize_q8_1 / quantize_q8_K), the format's production
// mat-vec launcher twice on it (gate rows 0..N-1, then up rows N..2N-1 of the merged weight),
// and y = silu(g) * u by fused_silu_mul (expf 2 ULP: cuda_math, which gate_up_ref takes).
// Declared precision: the CUDA mat-vec's (registry_cuda.cpp matvec_depth), M <= kMatvecRows
// per launch like the mat-vec.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "backends/cuda/cuda_runtime.hpp"
#include "core/guarded.hpp"
#include "kernels/cuda/fused_launchers.hpp"
#include "kernels/cuda/cuda_code.hpp"
#include "core/kernel.hpp"
#include "kernels/registrars.hpp"
#include "core/launch_adapters.hpp"
#include "oracles/formats/geometry.hpp"

namespace qgate {
namespace cuf {
namespace {

const char* fail(std::string msg) { return launch_failed(std::move(msg)); }

constexpr int64_t log2_threads() {
  int64_t l = 0;
  while ((int64_t{1} << l) < cuk::kMatvecThreads) ++l;
  return l;
}
// The CUDA mat-vec's declared depth (as registry_cuda.cpp's matvec_depth).
constexpr Depth gate_up_depth{1, 32 * cuk::kMatvecThreads, log2_threads() + 6};

struct GateUpCode {
  cuk::MatvecLaunch matvec;
  ActQuant act;
};

const char* launch_gate_up(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  const GateUpCode& code = *static_cast<const GateUpCode*>(k.device_code);
  const FormatInfo& f = format_info(k.format);
  if (const char* e = gate_up_rows_error(w.n)) return e;
  if (w.k % f.block_elems) return "gate_up: k is not a multiple of the block size";
  const int64_t ab = act_block(code.act);
  if (w.k % ab) return fail("gate_up: k=" + std::to_string(w.k) + " is not a multiple of the activation block");
  if (m < 1) return "gate_up: m must be >= 1";
  std::string why;
  cu::Runtime* rt = cu::Runtime::instance(why);
  if (!rt) return fail("cuda unavailable: " + why);
  const int64_t n = w.n / 2;
  const size_t row_bytes = static_cast<size_t>(w.k / f.block_elems) * f.block_bytes;
  const size_t act_bytes = code.act == ActQuant::q8_1 ? block::q8_1::bytes : block::q8_K::bytes;
  const size_t xrow = static_cast<size_t>(w.k / ab) * act_bytes;
  std::string e;
  cu::DeviceBuffer wb, xf, xq, g, u;
  cu::GuardedMirror om;
  if (e.empty()) e = wb.alloc(w.bytes.size());
  if (e.empty()) e = wb.upload(w.bytes.data(), w.bytes.size());
  if (e.empty()) e = xf.alloc(static_cast<size_t>(m * w.k) * 4);
  if (e.empty()) e = xf.upload(x, static_cast<size_t>(m * w.k) * 4);
  if (e.empty()) e = xq.alloc(static_cast<size_t>(m) * xrow);
  if (e.empty()) e = g.alloc(static_cast<size_t>(m * n) * 4);
  if (e.empty()) e = u.alloc(static_cast<size_t>(m * n) * 4);
  if (e.empty()) e = om.upload(out, 4096);
  if (!e.empty()) return fail(e);
  // One quantization of x, shared by both halves.
  if (code.act == ActQuant::q8_1) cuk::quantize_q8_1(static_cast<const float*>(xf.ptr()), m, w.k, xq.bytes_ptr(), rt->stream());
  else cuk::quantize_q8_K(static_cast<const float*>(xf.ptr()), m, w.k, xq.bytes_ptr(), rt->stream());
  std::string et;
  const auto* t = cuk::device_tables(et);
  if (!t) return fail(et);
  for (int64_t m0 = 0; m0 < m; m0 += cuk::kMatvecRows) {
    const int rows = static_cast<int>(std::min<int64_t>(cuk::kMatvecRows, m - m0));
    const uint8_t* xr = xq.bytes_ptr() + m0 * xrow;
    code.matvec(wb.bytes_ptr(), xr, static_cast<float*>(g.ptr()) + m0 * n, n, w.k, rows, n, *t, rt->stream());
    code.matvec(wb.bytes_ptr() + n * row_bytes, xr, static_cast<float*>(u.ptr()) + m0 * n, n, w.k, rows, n, *t,
                rt->stream());
  }
  cuk::fused_silu_mul(static_cast<const float*>(g.ptr()), static_cast<const float*>(u.ptr()),
                      static_cast<float*>(om.payload()), m * n, rt->stream());
  if (auto le = rt->launch_error(k.name.c_str()); !le.empty()) return fail(le);
  if (auto fe = om.finish(out); !fe.empty()) return fail(k.name + ": " + fe);
  return nullptr;
}

}  // namespace
}  // namespace cuf

namespace {

void add_gate_up(std::vector<KernelInfo>& v, FormatId f, ActQuant act, const cuf::GateUpCode& code) {
  KernelInfo g{kernel_name("gate_up", f, act_name(act), BackendId::cuda), Op::gate_up, BackendId::cuda, f,
               Precision{act, 23, cuf::gate_up_depth, OutType::f32},
               Tile{1, 1, std::lcm(format_info(f).block_elems, 32 * cuk::kMatvecThreads)}, cuk::kMatvecRows};
  g.launch = from_weight<cuf::launch_gate_up>;
  g.device_code = &code;
  g.math = cuda_math();
  v.push_back(g);
}

}  // namespace

void add_cuda_gate_up_kernels(std::vector<KernelInfo>& v) {
#define QGATE_GATE_UP_cuda(fmt, act)                                     \
  {                                                                      \
    static const cuf::GateUpCode code{cuk::matvec_##fmt, ActQuant::act}; \
    add_gate_up(v, FormatId::fmt, ActQuant::act, code);                  \
  }
#include "kernels/gate_up.inc"
#undef QGATE_GATE_UP_cuda
}

}  // namespace qgate
