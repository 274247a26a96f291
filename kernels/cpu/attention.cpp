// CPU attention, f32: eager (scores, softmax materialized as P in f32, then P.V) and flash
// (online softmax over tiles of kFlashTile keys; the unnormalized weights rounded to P's
// type before P.V and the running sum). Scores: a sequential fma chain over d, then * scale.
// Causal: query t of `tokens` sits at position kv_len - tokens + t. GQA: q head h reads kv
// head h / (n_head / n_head_kv).
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/fused.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {
namespace {

const char* check(const FusedArgs& a) {
  return fused_args_error(a);
}

float score(const float* q, const float* k, int64_t d, float scale) {
  float acc = 0;
  for (int64_t i = 0; i < d; ++i) acc = std::fma(q[i], k[i], acc);
  return acc * scale;
}

template <OutType P>
float round_p(float p) {
  if (QGATE_MUTANT_ON(cpu_flash_p_fp8)) return e4m3_to_f(f_to_e4m3(p));
  if constexpr (P == OutType::f16) return static_cast<float>(static_cast<_Float16>(p));
  else if constexpr (P == OutType::bf16) return bits2f(static_cast<uint32_t>(d2bf(p)) << 16);
  else return p;
}

// One query row (token t, head h): its causal key count n (keys 0..n-1), the query, the cache
// rows of its KV head (GQA) and its output row.
struct Row {
  int64_t n;
  const float *q, *kc, *vc;
  float* o;
};

// Calls f(row) for every (token, head) of the launch, tokens outer.
template <class F>
void for_each_row(const FusedArgs& a, F&& f) {
  const int64_t g = a.n_head / a.n_head_kv, d = a.d;
  for (int64_t t = 0; t < a.tokens; ++t)
    for (int64_t h = 0; h < a.n_head; ++h)
      f(Row{a.kv_len - a.tokens + t + 1, a.q + (t * a.n_head + h) * d, a.k_cache + (h / g) * a.kv_cap * d,
            a.v_cache + (h / g) * a.kv_cap * d, a.out0 + (t * a.n_head + h) * d});
}

}  // namespace

const char* attn_eager_f32(const FusedArgs& a) {
  if (const char* e = check(a)) return e;
  const int64_t d = a.d;
  std::vector<float> p(static_cast<size_t>(a.kv_len));
  for_each_row(a, [&](const Row& r) {
    float m = -INFINITY;
    for (int64_t j = 0; j < r.n; ++j) m = std::max(m, p[j] = score(r.q, r.kc + j * d, d, a.scale));
    float l = 0;
    for (int64_t j = 0; j < r.n; ++j) l += p[j] = std::exp(p[j] - m);
    for (int64_t j = 0; j < r.n; ++j) p[j] /= l;
    for (int64_t i = 0; i < d; ++i) {
      float acc = 0;
      for (int64_t j = 0; j < r.n; ++j) acc = std::fma(p[j], r.vc[j * d + i], acc);
      r.o[i] = acc;
    }
  });
  return nullptr;
}

template <OutType P>
const char* attn_flash(const FusedArgs& a) {
  if (const char* e = check(a)) return e;
  const int64_t d = a.d;
  std::vector<float> acc(static_cast<size_t>(d)), s(kFlashTile);
  for_each_row(a, [&](const Row& r) {
    float m = -INFINITY, l = 0;
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t j0 = 0; j0 < r.n; j0 += kFlashTile) {
      const int64_t nt = std::min<int64_t>(kFlashTile, r.n - j0);
      float mt = m;
      for (int64_t j = 0; j < nt; ++j) mt = std::max(mt, s[j] = score(r.q, r.kc + (j0 + j) * d, d, a.scale));
      if (!QGATE_MUTANT_ON(cpu_flash_rescale_dropped)) {
        const float alpha = std::exp(m - mt);  // 0 on the first tile (m = -inf)
        l *= alpha;
        for (int64_t i = 0; i < d; ++i) acc[i] *= alpha;
      }
      for (int64_t j = 0; j < nt; ++j) {
        const float p = round_p<P>(std::exp(s[j] - mt));
        l += p;
        const float* vr = r.vc + (j0 + j) * d;
        for (int64_t i = 0; i < d; ++i) acc[i] = std::fma(p, vr[i], acc[i]);
      }
      m = mt;
    }
    for (int64_t i = 0; i < d; ++i) r.o[i] = acc[i] / l;
  });
  return nullptr;
}

template const char* attn_flash<OutType::f32>(const FusedArgs&);
template const char* attn_flash<OutType::f16>(const FusedArgs&);
template const char* attn_flash<OutType::bf16>(const FusedArgs&);

}  // namespace qgate::cpu
