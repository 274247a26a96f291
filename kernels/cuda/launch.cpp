// CUDA launches for the registered kernels: upload the weights (and activations), mirror
// the output's whole guarded region on the device (plus guard slack), run on the
// runtime's stream, copy the region back and check the slack, so the verdict sees
// device-side writes past the output and unwritten poison.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cuda/cuda_runtime.hpp"
#include "core/guarded.hpp"
#include "kernels/cuda/cuda_code.hpp"
#include "kernels/mutant.hpp"
#include "oracles/formats/gptq.hpp"
#include "oracles/formats/geometry.hpp"
#include "oracles/formats/iq_tables.hpp"
#include "oracles/ops/quantize_act.hpp"

namespace qgate::cuk {
namespace {

const char* fail(std::string msg) { return launch_failed(std::move(msg)); }

// The GEMM's repacked-activation scratch for m rows of k (launchers.hpp gemm_xpack_bytes);
// "" or why not (a shape past the kernel's 32-bit offsets is refused, not computed wrong).
std::string alloc_xpack(cu::DeviceBuffer& xp, int64_t m, int64_t k) {
  if (!gemm_xpack_fits(m, k)) return "the GEMM's repacked activations pass 64 GiB: split M";
  return xp.alloc(static_cast<size_t>(gemm_xpack_bytes(m, k)));
}

// The IQ codebooks, uploaded once per process as the oracles' bytes.
const IqTables* tables(std::string& err) {
  static cu::DeviceBuffer* bufs = new cu::DeviceBuffer[7];  // process lifetime: never freed at exit
  static IqTables t;
  static std::string why;
  static std::once_flag once;
  std::call_once(once, [] {
    auto up = [&](int i, const void* src, size_t bytes) -> const void* {
      if (why.empty()) why = bufs[i].alloc(bytes);
      if (why.empty()) why = bufs[i].upload(src, bytes);
      return bufs[i].ptr();
    };
    t.iq2xxs = static_cast<const uint64_t*>(up(0, iq::kIq2xxsGrid, sizeof iq::kIq2xxsGrid));
    t.iq2xs = static_cast<const uint64_t*>(up(1, iq::kIq2xsGrid, sizeof iq::kIq2xsGrid));
    t.iq2s = static_cast<const uint64_t*>(up(2, iq::kIq2sGrid, sizeof iq::kIq2sGrid));
    t.iq3xxs = static_cast<const uint32_t*>(up(3, iq::kIq3xxsGrid, sizeof iq::kIq3xxsGrid));
    t.iq3s = static_cast<const uint32_t*>(up(4, iq::kIq3sGrid, sizeof iq::kIq3sGrid));
    t.iq1s = static_cast<const uint64_t*>(up(5, iq::kIq1sGrid, sizeof iq::kIq1sGrid));
    t.iq4nl = static_cast<const int8_t*>(up(6, iq::kValuesIq4nl, sizeof iq::kValuesIq4nl));
    std::string e;
    if (why.empty()) {
      if (cu::Runtime* rt = cu::Runtime::instance(e)) why = rt->sync("IQ table upload");
    }
  });
  err = why;
  return why.empty() ? &t : nullptr;
}

struct Ready {
  cu::Runtime* rt = nullptr;
  const IqTables* t = nullptr;
  std::string err;
};
Ready ready() {
  Ready r;
  r.rt = cu::Runtime::instance(r.err);
  if (!r.rt) {
    r.err = "cuda unavailable: " + r.err;
    return r;
  }
  r.t = tables(r.err);
  return r;
}

size_t act_block_bytes(ActQuant a) {
  return a == ActQuant::q8_1 ? block::q8_1::bytes : a == ActQuant::none ? 4 : block::q8_K::bytes;
}

// x (m rows of k f32) quantized into xq on the device;
// ActQuant::none (the float formats' mat-vec): x uploaded as it is.
std::string quantize(ActQuant a, const float* x, int64_t m, int64_t k, cu::DeviceBuffer& xq, cu::Runtime& rt) {
  if (a == ActQuant::none) {
    if (auto e = xq.alloc(static_cast<size_t>(m * k) * 4); !e.empty()) return e;
    return xq.upload(x, static_cast<size_t>(m * k) * 4);
  }
  if (a != ActQuant::q8_1 && a != ActQuant::q8_K) return "no device quantizer for activations " + std::string(act_name(a));
  if (k % act_block(a)) return "k=" + std::to_string(k) + " is not a multiple of the " + std::string(act_name(a)) + " block";
  cu::DeviceBuffer xf;
  if (auto e = xf.alloc(static_cast<size_t>(m * k) * 4); !e.empty()) return e;
  if (auto e = xf.upload(x, static_cast<size_t>(m * k) * 4); !e.empty()) return e;
  if (auto e = xq.alloc(static_cast<size_t>(m * (k / act_block(a))) * act_block_bytes(a)); !e.empty()) return e;
  if (a == ActQuant::q8_1) quantize_q8_1(static_cast<const float*>(xf.ptr()), m, k, xq.bytes_ptr(), rt.stream());
  else quantize_q8_K(static_cast<const float*>(xf.ptr()), m, k, xq.bytes_ptr(), rt.stream());
  return rt.sync("activation quantization");  // before xf is freed
}

}  // namespace

const char* launch_dequant(const KernelInfo& k, const QTensor& w, const float*, int64_t, GuardedBuffer& out) {
  Ready r = ready();
  if (!r.t) return fail(r.err);
  const Code& code = *static_cast<const Code*>(k.device_code);
  if (w.k % code.block_elems) return fail("k is not a multiple of the block size");
  cu::DeviceBuffer wb;
  cu::GuardedMirror om;
  if (auto e = wb.assign(w.bytes.data(), w.bytes.size()); !e.empty()) return fail(e);
  if (auto e = om.upload(out, 4096); !e.empty()) return fail(e);
  code.dequant(wb.bytes_ptr(), w.n, w.k, om.payload(), k.prec.out, *r.t, r.rt->stream());
  if (auto e = r.rt->launch_error(k.name.c_str()); !e.empty()) return fail(e);
  if (auto e = om.finish(out); !e.empty()) return fail(k.name + ": " + e);
  return nullptr;
}

const char* launch_matvec(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  Ready r = ready();
  if (!r.t) return fail(r.err);
  const Code& code = *static_cast<const Code*>(k.device_code);
  if (w.k % code.block_elems) return fail("k is not a multiple of the block size");
  MatvecLaunch mv = code.matvec;
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(cuda_crossed_nibble_lanes) && k.format == FormatId::q4_0) mv = mutant_matvec_q4_0_crossed_lanes;
  if (QGATE_MUTANT_ON(cuda_rows_past_m) && k.format == FormatId::q4_K) mv = mutant_matvec_q4_K_rows_past_m;
  if (QGATE_MUTANT_ON(cuda_grid_capped) && k.format == FormatId::q8_0) mv = mutant_matvec_q8_0_grid_capped;
  if (QGATE_MUTANT_ON(cuda_single_k_sweep) && k.format == FormatId::q4_K) mv = mutant_matvec_q4_K_single_sweep;
#endif
  cu::DeviceBuffer wb, xq;
  cu::GuardedMirror om;
  if (auto e = wb.assign(w.bytes.data(), w.bytes.size()); !e.empty()) return fail(e);
#ifdef QGATE_MUTANTS
  // Planted (cuda_act_cache_by_shape): the quantized activations of the last call reused
  // whenever m and k repeat, a cache keyed by the shape and not the data.
  static struct {
    int64_t m = -1, k = -1;
    std::vector<uint8_t> bytes;
  } act_cache;
  const bool caching = QGATE_MUTANT_ON(cuda_act_cache_by_shape) && k.format == FormatId::q5_0;
  if (caching && act_cache.m == m && act_cache.k == w.k) {
    if (auto e = xq.assign(act_cache.bytes.data(), act_cache.bytes.size()); !e.empty()) return fail(e);
  } else {
    if (auto e = quantize(k.prec.act, x, m, w.k, xq, *r.rt); !e.empty()) return fail(e);
    if (caching) {
      act_cache.m = m, act_cache.k = w.k, act_cache.bytes.resize(xq.bytes());
      if (auto e = xq.download(act_cache.bytes.data(), xq.bytes()); !e.empty()) return fail(e);
      if (auto e = r.rt->sync("activation cache"); !e.empty()) return fail(e);
    }
  }
#else
  if (auto e = quantize(k.prec.act, x, m, w.k, xq, *r.rt); !e.empty()) return fail(e);
#endif
  // Slack for a kernel that writes all kMatvecRows accumulator rows whatever m is.
  if (auto e = om.upload(out, std::max<size_t>(4096, static_cast<size_t>(kMatvecRows * w.n) * 4)); !e.empty())
    return fail(e);
  const size_t xrow = static_cast<size_t>(w.k / act_block(k.prec.act)) * act_block_bytes(k.prec.act);
  for (int64_t m0 = 0; m0 < m; m0 += kMatvecRows) {
    const int rows = static_cast<int>(std::min<int64_t>(kMatvecRows, m - m0));
    mv(wb.bytes_ptr(), xq.bytes_ptr() + m0 * xrow, static_cast<float*>(om.payload()) + m0 * w.n, w.n, w.k, rows, w.n,
       *r.t, r.rt->stream());
    if (auto e = r.rt->launch_error(k.name.c_str()); !e.empty()) return fail(e);
  }
  if (auto e = om.finish(out); !e.empty()) return fail(k.name + ": " + e);
  return nullptr;
}

const char* launch_gemm(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  Ready r = ready();
  if (!r.t) return fail(r.err);
  const Code& code = *static_cast<const Code*>(k.device_code);
  if (w.k % code.block_elems) return fail("k is not a multiple of the block size");
  GemmLaunch gm = code.gemm;
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(cuda_gemm_missing_sync) && k.format == FormatId::q4_0) gm = mutant_gemm_q4_0_missing_sync;
  if (QGATE_MUTANT_ON(cuda_gemm_split_unreduced) && k.format == FormatId::q4_K) gm = mutant_gemm_q4_K_split_unreduced;
#endif
  GemmArgs a;
  a.n = w.n;
  a.k = w.k;
  a.m = m;
  a.ldy = w.n;
  a.t = *r.t;
  gptq::Layout lay;
  if (code.gptq) {  // the container as gptq.hpp lays it out; accepts() refused g_idx and odd groups
    if (w.bytes.size() < gptq::kHeaderBytes) return fail("not a GPTQ container");
    uint32_t h[4];
    std::memcpy(h, w.bytes.data() + 8, 16);
    if (h[0] != w.k || h[1] != w.n) return fail("GPTQ container shape does not match the launch");
    if ((h[3] & gptq::kFlagGIdx) || h[2] == 0 || h[2] % 32) return fail("the GPTQ GEMM needs contiguous groups of a multiple of 32");
    gptq::Params p;
    p.n = w.n;
    p.k = w.k;
    p.group_size = static_cast<int>(h[2]);
    lay = gptq::layout(p);
    if (lay.total > w.bytes.size()) return fail("GPTQ container is truncated");
    a.group = h[2];
  }
  cu::DeviceBuffer wb, xq, xp, part;
  cu::GuardedMirror om;
  if (auto e = wb.assign(w.bytes.data(), w.bytes.size()); !e.empty()) return fail(e);
  if (auto e = quantize(k.prec.act, x, m, w.k, xq, *r.rt); !e.empty()) return fail(e);
  if (auto e = om.upload(out, 4096); !e.empty()) return fail(e);
  a.w = wb.bytes_ptr();
  if (code.gptq) {
    a.qweight = reinterpret_cast<const uint32_t*>(wb.bytes_ptr() + lay.qweight);
    a.qzeros = reinterpret_cast<const uint32_t*>(wb.bytes_ptr() + lay.qzeros);
    a.scales = reinterpret_cast<const uint16_t*>(wb.bytes_ptr() + lay.scales);
  }
  a.xq = xq.bytes_ptr();
  if (auto e = alloc_xpack(xp, m, w.k); !e.empty()) return fail(e);
  a.xpack = xp.bytes_ptr();
  a.y = static_cast<float*>(om.payload());
  gemm_plan(a);
  if (a.splits > 1) {
    if (auto e = part.alloc(static_cast<size_t>(a.splits * a.m * a.n) * 4); !e.empty()) return fail(e);
    a.partial = static_cast<float*>(part.ptr());
  }
  gm(a, r.rt->stream());
  if (auto e = r.rt->launch_error(k.name.c_str()); !e.empty()) return fail(e);
  if (auto e = om.finish(out); !e.empty()) return fail(k.name + ": " + e);
  return nullptr;
}

// Indexed MoE: the ids go to the device as a tensor and the kernels read them there.
const char* launch_moe(const KernelInfo& k, const QTensor& w, int64_t experts, const float* x, int64_t m,
                       const int32_t* ids, int64_t top_k, GuardedBuffer& out) {
  Ready r = ready();
  if (!r.t) return fail(r.err);
  const Code& code = *static_cast<const Code*>(k.device_code);
  if (w.k % code.block_elems) return fail("k is not a multiple of the block size");
  if (experts < 1 || w.n % experts || top_k < 1 || m < 1) return fail("moe: the weight rows are not whole experts");
  const int64_t n = w.n / experts, slots = m * top_k;
  cu::DeviceBuffer wb, xq, xp, idb, list, count;
  cu::GuardedMirror om;
  if (auto e = wb.assign(w.bytes.data(), w.bytes.size()); !e.empty()) return fail(e);
  if (auto e = quantize(k.prec.act, x, m, w.k, xq, *r.rt); !e.empty()) return fail(e);
  if (auto e = idb.assign(ids, static_cast<size_t>(slots) * 4); !e.empty()) return fail(e);
  if (auto e = om.upload(out, 4096); !e.empty()) return fail(e);
  float* y = static_cast<float*>(om.payload());
  const int32_t* dids = static_cast<const int32_t*>(idb.ptr());
  if (code.moe_matvec) {
    MoeMatvecLaunch mv = code.moe_matvec;
#ifdef QGATE_MUTANTS
    if (QGATE_MUTANT_ON(cuda_moe_wrong_slot) && k.format == FormatId::q4_K) mv = mutant_moe_matvec_q4_K_wrong_slot;
#endif
    mv(wb.bytes_ptr(), xq.bytes_ptr(), dids, y, n, w.k, static_cast<int>(m), static_cast<int>(top_k),
       static_cast<int>(experts), *r.t, r.rt->stream());
  } else {
    if (auto e = list.alloc(static_cast<size_t>(experts * slots) * 4); !e.empty()) return fail(e);
    if (auto e = count.alloc(static_cast<size_t>(experts) * 4); !e.empty()) return fail(e);
    if (auto e = alloc_xpack(xp, m, w.k); !e.empty()) return fail(e);
    GemmArgs a;
    a.w = wb.bytes_ptr();
    a.xq = xq.bytes_ptr();
    a.xpack = xp.bytes_ptr();
    a.y = y;
    a.n = n;
    a.k = w.k;
    a.m = m;
    a.ldy = n;
    a.top_k = static_cast<int>(top_k);
    a.t = *r.t;
    code.moe_gemm(a, static_cast<int>(experts), dids, static_cast<int32_t*>(list.ptr()), static_cast<int32_t*>(count.ptr()),
                  r.rt->stream());
  }
  if (auto e = r.rt->launch_error(k.name.c_str()); !e.empty()) return fail(e);
  if (auto e = om.finish(out); !e.empty()) return fail(k.name + ": " + e);
  return nullptr;
}

const IqTables* device_tables(std::string& err) { return tables(err); }

std::string quantize_act_on_device(ActQuant a, const float* x, int64_t m, int64_t k, std::vector<uint8_t>& blocks) {
  Ready r = ready();
  if (!r.rt) return r.err;
  cu::DeviceBuffer xq;
  if (auto e = quantize(a, x, m, k, xq, *r.rt); !e.empty()) return e;
  blocks.resize(xq.bytes());
  if (auto e = xq.download(blocks.data(), blocks.size()); !e.empty()) return e;
  return r.rt->sync("download");
}

}  // namespace qgate::cuk
