// MoE router (softmax -> top-k -> renormalize) and SiLU * mul (SwiGLU), f32.
#include <cmath>
#include <vector>

#include "kernels/cpu/fused.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {

// Softmax in f32 (max-shifted expf, a sequential sum, one division each), then k passes of
// selection: the largest probability, equal probabilities going to the lower expert index.
const char* moe_route_f32(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  std::vector<float> p(static_cast<size_t>(a.n));
  std::vector<char> taken(static_cast<size_t>(a.n));
  for (int64_t r = 0; r < a.rows; ++r) {
    const float* l = a.x + r * a.n;
    float m = l[0];
    for (int64_t j = 0; j < a.n; ++j) {
      if (!std::isfinite(l[j])) return "moe_route: non-finite logit";
      m = std::max(m, l[j]);
    }
    float sum = 0;
    for (int64_t j = 0; j < a.n; ++j) sum += p[j] = std::exp(l[j] - m);
    for (int64_t j = 0; j < a.n; ++j) p[j] /= sum;
    std::fill(taken.begin(), taken.end(), 0);
    int32_t* ids = a.ids + r * a.top_k;
    float chosen = 0;
    for (int64_t s = 0; s < a.top_k; ++s) {
      int64_t best = -1;
      for (int64_t j = 0; j < a.n; ++j) {
        if (taken[j]) continue;
        const bool tie_wins = QGATE_MUTANT_ON(cpu_router_ties_reversed);  // later index wins a tie
        if (best < 0 || p[j] > p[best] || (tie_wins && p[j] == p[best])) best = j;
      }
      taken[best] = 1;
      ids[s] = static_cast<int32_t>(best);
      chosen += p[best];
    }
    for (int64_t s = 0; s < a.top_k; ++s)
      a.out0[r * a.top_k + s] = QGATE_MUTANT_ON(cpu_router_renorm_skipped) ? p[ids[s]] : p[ids[s]] / chosen;
  }
  return nullptr;
}

const char* silu_mul_f32(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  const bool swapped = QGATE_MUTANT_ON(cpu_silu_on_up);
  for (int64_t i = 0; i < a.rows * a.n; ++i) {
    const float g = swapped ? a.res[i] : a.x[i], u = swapped ? a.x[i] : a.res[i];
    a.out0[i] = g / (1.0f + std::exp(-g)) * u;
  }
  return nullptr;
}

}  // namespace qgate::cpu
