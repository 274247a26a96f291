// Fused residual add + RMSNorm, and per-head q/k RMSNorm + RoPE + KV-cache write.
//   The sum of squares runs in kNormLanes f32 lanes (fma) and a 3-level tree:
//   declared depth ceil(n / 8) + 3.
//   RoPE: theta_i = f32(pos) * powf(base, f32(-2i / d)), sinf/cosf, pairs per RopeMode.
#include <cmath>

#include "kernels/cpu/fused.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {
namespace {

float inv_rms(const float* h, int64_t n, float eps) {
  float lane[kNormLanes] = {};
  for (int64_t i = 0; i < n; ++i) lane[i % kNormLanes] = std::fma(h[i], h[i], lane[i % kNormLanes]);
  for (int w = kNormLanes / 2; w > 0; w /= 2)
    for (int l = 0; l < w; ++l) lane[l] += lane[l + w];
  const float mean = lane[0] / static_cast<float>(n);
  if (QGATE_MUTANT_ON(cpu_rmsnorm_eps_outside_sqrt)) return 1.0f / (std::sqrt(mean) + eps);
  return 1.0f / std::sqrt(mean + eps);
}

// RMSNorm (weight w) then RoPE of one head vector src -> dst.
void norm_rope(const float* src, const float* w, int64_t d, float eps, int32_t pos, float base, RopeMode mode,
               float* dst) {
  float tmp[1024];
  const float ir = inv_rms(src, d, eps);
  for (int64_t i = 0; i < d; ++i) tmp[i] = src[i] * ir * w[i];
  bool neox = mode == RopeMode::neox;
  if (QGATE_MUTANT_ON(cpu_rope_pairing_swapped)) neox = !neox;
  for (int64_t i = 0; i < d / 2; ++i) {
    const int64_t i0 = neox ? i : 2 * i, i1 = neox ? i + d / 2 : 2 * i + 1;
    const float freq = std::pow(base, static_cast<float>(-2 * i) / static_cast<float>(d));
    const float theta = static_cast<float>(pos) * freq;
    const float c = std::cos(theta), s = std::sin(theta);
    const float x0 = tmp[i0], x1 = tmp[i1];
    dst[i0] = std::fma(-x1, s, x0 * c);
    dst[i1] = std::fma(x1, c, x0 * s);
  }
}

}  // namespace

const char* add_rmsnorm_f32(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  for (int64_t r = 0; r < a.rows; ++r) {
    const float* x = a.x + r * a.n;
    const float* res = a.res + r * a.n;
    float* h = a.out1 + r * a.n;
    float* y = a.out0 + r * a.n;
    for (int64_t i = 0; i < a.n; ++i) h[i] = x[i] + res[i];
    const float ir = inv_rms(h, a.n, a.eps);
    for (int64_t i = 0; i < a.n; ++i) y[i] = h[i] * ir * a.w[i];
  }
  return nullptr;
}

const char* qk_norm_rope_kv_f32(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.d > 1024) return "qk_norm_rope: this kernel takes head dims up to 1024";
  const int64_t d = a.d;
  for (int64_t t = 0; t < a.tokens; ++t) {
    const int32_t p = a.pos[t];
    for (int64_t h = 0; h < a.n_head; ++h)
      norm_rope(a.q + (t * a.n_head + h) * d, a.w_q, d, a.eps, p, a.rope_base, a.rope_mode,
                a.out0 + (t * a.n_head + h) * d);
    const int64_t slot = QGATE_MUTANT_ON(cpu_kv_slot_off) ? (p + 1) % a.kv_cap : p;  // planted: one slot off
    for (int64_t h = 0; h < a.n_head_kv; ++h) {
      float* kc = a.k_cache + (h * a.kv_cap + slot) * d;
      float* vc = a.v_cache + (h * a.kv_cap + slot) * d;
      norm_rope(a.k + (t * a.n_head_kv + h) * d, a.w_k, d, a.eps, p, a.rope_base, a.rope_mode, kc);
      for (int64_t i = 0; i < d; ++i) vc[i] = a.v[(t * a.n_head_kv + h) * d + i];
    }
  }
  return nullptr;
}

}  // namespace qgate::cpu
