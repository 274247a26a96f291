// CUDA launches of the fusion and attention kernels (kernels/fused.inc): upload the
// inputs, mirror each output with its guards (FusedArgs::red_*) on the device, launch on
// the runtime's stream, copy every mirrored region back, so device-side writes past an
// output, unwritten poison and clobbered cache rows show in the verdict as on the CPU.
// Registered into fused_kernels() with the precision of the CUDA builtins (cuda_math,
// oracles/ops/fused_math.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/launch_adapters.hpp"
#include "backends/cuda/cuda_runtime.hpp"
#include "core/fused_args.hpp"
#include "kernels/cuda/fused_launchers.hpp"
#include "core/kernel.hpp"
#include "kernels/registrars.hpp"
#include "kernels/mutant.hpp"
#include "kernels/registry.hpp"

namespace qgate {
namespace cuf {

using namespace cuk;
enum class Attn { eager, flash_f32, flash_f16, flash_bf16 };

namespace {

const char* fail(std::string msg) { return launch_failed(std::move(msg)); }

// One tensor on the device: an input (copied up), or an output mirrored with `red` guard
// bytes on each side (copied up, and back after the launch).
struct Tensor {
  cu::DeviceBuffer b;
  uint8_t* host = nullptr;  // output: the start of the mirrored region
  size_t bytes = 0, red = 0;
  std::string err;
  Tensor(const void* src, size_t n_bytes) : bytes(n_bytes) {
    err = b.alloc(std::max<size_t>(n_bytes, 4));
    if (err.empty() && src) err = b.upload(src, n_bytes);
  }
  Tensor(void* out, size_t n_bytes, size_t guard) : host(static_cast<uint8_t*>(out) - guard), bytes(n_bytes + 2 * guard), red(guard) {
    err = b.alloc(bytes);
    if (err.empty()) err = b.upload(host, bytes);
  }
  template <class T>
  T* dev() const {  // the payload (past the front guard)
    return reinterpret_cast<T*>(b.bytes_ptr() + red);
  }
  std::string back() const { return b.download(host, bytes); }
};

template <class... T>
std::string first_error(const T&... t) {
  std::string e;
  ((e.empty() ? void(e = t.err) : void()), ...);
  return e;
}

cu::Runtime* runtime() {
  std::string why;
  cu::Runtime* rt = cu::Runtime::instance(why);
  if (!rt) fail("cuda unavailable: " + why);
  return rt;
}

// After the launch: the launch error, the copies back, the execution error.
template <class... T>
const char* finish(cu::Runtime* rt, const char* what, const T&... outs) {
  if (auto e = rt->launch_error(what); !e.empty()) return fail(e);
  std::string e;
  ((e.empty() ? void(e = outs.back()) : void()), ...);
  if (e.empty()) e = rt->sync(what);
  return e.empty() ? nullptr : fail(e);
}

constexpr int64_t kMaxGrid = (int64_t{1} << 31) - 1;

}  // namespace

const char* launch_silu_mul(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  cu::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const size_t n = static_cast<size_t>(a.rows * a.n);
  Tensor g(a.x, 4 * n), u(a.res, 4 * n), o(a.out0, 4 * n, a.red_out0);
  if (auto e = first_error(g, u, o); !e.empty()) return fail(e);
  fused_silu_mul(g.dev<float>(), u.dev<float>(), o.dev<float>(), static_cast<int64_t>(n), rt->stream());
  return finish(rt, "silu_mul_f32_cuda", o);
}

const char* launch_add_rmsnorm(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.rows > kMaxGrid) return "add_rmsnorm: more than 2^31 - 1 rows";
  cu::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const size_t n = static_cast<size_t>(a.rows * a.n);
  Tensor x(a.x, 4 * n), r(a.res, 4 * n), w(a.w, 4 * static_cast<size_t>(a.n)), y(a.out0, 4 * n, a.red_out0),
      h(a.out1, 4 * n, a.red_out1);
  if (auto e = first_error(x, r, w, y, h); !e.empty()) return fail(e);
  fused_add_rmsnorm(x.dev<float>(), r.dev<float>(), w.dev<float>(), y.dev<float>(), h.dev<float>(), a.rows, a.n, a.eps,
                    rt->stream());
  return finish(rt, "add_rmsnorm_f32_cuda", y, h);
}

const char* launch_qk_norm_rope(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.d > 4096) return "qk_norm_rope: this kernel takes head dims up to 4096";
  if (a.tokens * (a.n_head + a.n_head_kv) > kMaxGrid) return "qk_norm_rope: more than 2^31 - 1 head vectors";
  cu::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const int64_t d = a.d;
  const std::vector<float> freq = rope_frequencies(a.rope_base, d);  // as the CPU kernel forms them
  const size_t qn = static_cast<size_t>(a.tokens * a.n_head * d), kn = static_cast<size_t>(a.tokens * a.n_head_kv * d);
  const size_t cache = static_cast<size_t>(a.n_head_kv * a.kv_cap * d);
  Tensor q(a.q, 4 * qn), k(a.k, 4 * kn), v(a.v, 4 * kn), wq(a.w_q, 4 * static_cast<size_t>(d)),
      wk(a.w_k, 4 * static_cast<size_t>(d)), pos(a.pos, 4 * static_cast<size_t>(a.tokens)), fr(freq.data(), 4 * freq.size()),
      oq(a.out0, 4 * qn, a.red_out0), kc(a.k_cache, 4 * cache, a.red_k), vc(a.v_cache, 4 * cache, a.red_v);
  if (auto e = first_error(q, k, v, wq, wk, pos, fr, oq, kc, vc); !e.empty()) return fail(e);
  auto* run = fused_qk_norm_rope;
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(cuda_kv_slot_off)) run = mutant_fused_qk_norm_rope_slot_off;
#endif
  run(q.dev<float>(), k.dev<float>(), v.dev<float>(), wq.dev<float>(), wk.dev<float>(), pos.dev<int32_t>(), fr.dev<float>(),
      oq.dev<float>(), kc.dev<float>(), vc.dev<float>(), a.tokens, a.n_head, a.n_head_kv, d, a.kv_cap,
      a.rope_mode == RopeMode::neox, a.eps, rt->stream());
  return finish(rt, "qk_norm_rope_kv_f32_cuda", oq, kc, vc);
}

const char* launch_moe_route(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.n > kRouteMaxExperts || a.top_k > kRouteMaxK) return "moe_route: this kernel takes at most 256 experts and top_k <= 8";
  if (a.rows > kMaxGrid) return "moe_route: more than 2^31 - 1 rows";
  for (int64_t i = 0; i < a.rows * a.n; ++i)
    if (!std::isfinite(a.x[i])) return "moe_route: non-finite logit";
  cu::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const size_t k = static_cast<size_t>(a.rows * a.top_k);
  Tensor l(a.x, 4 * static_cast<size_t>(a.rows * a.n)), w(a.out0, 4 * k, a.red_out0), ids(a.ids, 4 * k, a.red_ids);
  if (auto e = first_error(l, w, ids); !e.empty()) return fail(e);
  fused_moe_route(l.dev<float>(), w.dev<float>(), ids.dev<int32_t>(), a.rows, a.n, a.top_k, rt->stream());
  return finish(rt, "moe_route_f32_cuda", w, ids);
}

template <Attn V>
const char* launch_attention(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.d > kAttnMaxD) return "attention: this kernel takes head dims up to 256";
  if (a.tokens * a.n_head > kMaxGrid) return "attention: more than 2^31 - 1 query rows";
  cu::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const size_t rows = static_cast<size_t>(a.tokens * a.n_head), d = static_cast<size_t>(a.d);
  const size_t cache = static_cast<size_t>(a.n_head_kv * a.kv_cap) * d;
  Tensor q(a.q, 4 * rows * d), k(a.k_cache, 4 * cache), v(a.v_cache, 4 * cache), o(a.out0, 4 * rows * d, a.red_out0),
      scratch(nullptr, V == Attn::eager ? 4 * rows * static_cast<size_t>(a.kv_len) : 0);
  if (auto e = first_error(q, k, v, o, scratch); !e.empty()) return fail(e);
  void* s = rt->stream();
  if constexpr (V == Attn::eager) {
    fused_attn_eager(q.dev<float>(), k.dev<float>(), v.dev<float>(), o.dev<float>(), scratch.dev<float>(), a.tokens,
                     a.n_head, a.n_head_kv, a.d, a.kv_len, a.kv_cap, a.scale, s);
  } else {
    const AttnP p = V == Attn::flash_f32 ? AttnP::f32 : V == Attn::flash_f16 ? AttnP::f16 : AttnP::bf16;
#ifdef QGATE_MUTANTS
    if (V == Attn::flash_f32 && QGATE_MUTANT_ON(cuda_flash_rescale_dropped)) {
      mutant_fused_attn_flash_rescale_dropped(q.dev<float>(), k.dev<float>(), v.dev<float>(), o.dev<float>(), a.tokens,
                                              a.n_head, a.n_head_kv, a.d, a.kv_len, a.kv_cap, a.scale, s);
      return finish(rt, "attn_flash_pf32_cuda (mutant)", o);
    }
    if (V == Attn::flash_bf16 && QGATE_MUTANT_ON(cuda_flash_p_fp8)) {
      mutant_fused_attn_flash_p_fp8(q.dev<float>(), k.dev<float>(), v.dev<float>(), o.dev<float>(), a.tokens, a.n_head,
                                    a.n_head_kv, a.d, a.kv_len, a.kv_cap, a.scale, s);
      return finish(rt, "attn_flash_pbf16_cuda (mutant)", o);
    }
#endif
    fused_attn_flash(p, q.dev<float>(), k.dev<float>(), v.dev<float>(), o.dev<float>(), a.tokens, a.n_head, a.n_head_kv,
                     a.d, a.kv_len, a.kv_cap, a.scale, s);
  }
  return finish(rt, "attention (cuda)", o);
}

namespace {

// The block RMSNorm: ceil(n / kNormThreads) squares per thread and a kNormLevels-level tree.
constexpr Depth depth_block_norm{1, kNormThreads, kNormLevels};
constexpr Depth depth_seq{};

}  // namespace
}  // namespace cuf

void add_cuda_fused_kernels(std::vector<KernelInfo>& v) {
  using namespace cuf;
  const FusedMath math = cuda_math();
#define QGATE_FUSED_cuda(stem, op, fn, depth, tile_k, p) \
  v.push_back(fused_kernel(#stem, BackendId::cuda, Op::op, from_fused<fn>, depth, tile_k, OutType::p, math));
#include "kernels/fused.inc"
#undef QGATE_FUSED_cuda
}

}  // namespace qgate
