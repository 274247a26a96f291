#version 450
// Causal GQA attention, one invocation per query row (t, h); query t sits at position
// kv_len - tokens + t; q head h reads kv head h / (n_head / n_head_kv). Scores: q.k along d
// (every product rounded, then added: depth d), then * scale.
//   EAGER: P materialized in f32 in a scratch buffer: e_j = exp(s_j - m) (3 + 2|z| ULP), l =
//     their sum, P_j = e_j / l (2.5 ULP), then O_i = sum_j P_j V_ji.
//   FLASH (P_F32 / P_F16 / P_BF16): online softmax over tiles of 32 keys: per tile the new
//     max, the rescale of the running sum and accumulators by exp(m_old - m_new), then
//     p = exp(s_j - m_new) rounded to P's type (integer rounding, fused_common.glsl),
//     l += p, acc += p V_j; O = acc / l (2.5 ULP). MUTANT_rescale_dropped omits the rescale.
// Head dim d <= 256 (the launch refuses more).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer K { float kc[]; };
layout(std430, binding = 2) readonly buffer V { float vc[]; };
layout(std430, binding = 3) buffer O { float o[]; };
layout(std430, binding = 4) buffer S { float scratch[]; };  // EAGER: P, [rows][kv_len]
layout(push_constant) uniform Pc {
  uint tokens; uint n_head; uint n_head_kv; uint d; uint kv_len; uint kv_cap; uint off; float scale;
} pc;
#include "fused_common.glsl"

const uint TILE = 32u;

float score(uint qo, uint ko) {
  precise float acc = 0.0;
  for (uint i = 0u; i < pc.d; ++i) {
    precise float pr = q[qo + i] * kc[ko + i];
    acc = acc + pr;
  }
  precise float s = acc * pc.scale;
  return s;
}

#ifdef MUTANT_p_fp8
// Planted: P (in [0, 1]) rounded to fp8 e4m3, 3 mantissa bits, subnormal below 2^-6.
float round_to_e4m3(float p) {
  if (p == 0.0) return p;
  int e;
  frexp(p, e);  // p = f 2^e, f in [0.5, 1)
  float step = exp2(float(max(e, -5) - 4));
  return min(roundEven(p / step) * step, 448.0);
}
#endif

float round_p(float p) {
#if defined(MUTANT_p_fp8)
  return round_to_e4m3(p);
#elif defined(P_F16)
  return round_to_f16(p);
#elif defined(P_BF16)
  return round_to_bf16(p);
#else
  return p;
#endif
}

void main() {
  uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
  if (row >= pc.tokens * pc.n_head) return;
  uint t = row / pc.n_head, h = row % pc.n_head, d = pc.d;
  uint kvh = h / (pc.n_head / pc.n_head_kv);
  uint n = pc.kv_len - pc.tokens + t + 1u;
  uint qo = row * d, kvo = kvh * pc.kv_cap * d;
  float acc[256];
  for (uint i = 0u; i < d; ++i) acc[i] = 0.0;
#ifdef EAGER
  uint so = row * pc.kv_len;
  float m = score(qo, kvo);
  scratch[so] = m;
  for (uint j = 1u; j < n; ++j) {
    float s = score(qo, kvo + j * d);
    scratch[so + j] = s;
    m = max(m, s);
  }
  precise float l = 0.0;
  for (uint j = 0u; j < n; ++j) {
    precise float z = scratch[so + j] - m;
    precise float e = exp(z);
    scratch[so + j] = e;
    l = l + e;
  }
  for (uint j = 0u; j < n; ++j) {
    precise float pj = scratch[so + j] / l;
    scratch[so + j] = pj;
  }
  for (uint j = 0u; j < n; ++j) {
    float pj = scratch[so + j];
    for (uint i = 0u; i < d; ++i) {
      precise float pv = pj * vc[kvo + j * d + i];
      precise float a = acc[i] + pv;
      acc[i] = a;
    }
  }
  for (uint i = 0u; i < d; ++i) o[pc.off + qo + i] = acc[i];
#else
  float m = 0.0;
  precise float l = 0.0;
  float s[TILE];
  for (uint j0 = 0u; j0 < n; j0 += TILE) {
    uint nt = min(TILE, n - j0);
    float mt = j0 == 0u ? score(qo, kvo + j0 * d) : m;
    for (uint j = 0u; j < nt; ++j) {
      s[j] = score(qo, kvo + (j0 + j) * d);
      mt = max(mt, s[j]);
    }
#ifndef MUTANT_rescale_dropped
    if (j0 != 0u) {  // nothing to rescale before the first tile
      precise float dm = m - mt;
      precise float alpha = exp(dm);
      precise float la = l * alpha;
      l = la;
      for (uint i = 0u; i < d; ++i) {
        precise float a = acc[i] * alpha;
        acc[i] = a;
      }
    }
#endif
    for (uint j = 0u; j < nt; ++j) {
      precise float z = s[j] - mt;
      float p = round_p(exp(z));
      precise float l2 = l + p;
      l = l2;
      for (uint i = 0u; i < d; ++i) {
        precise float pv = p * vc[kvo + (j0 + j) * d + i];
        precise float a = acc[i] + pv;
        acc[i] = a;
      }
    }
    m = mt;
  }
  for (uint i = 0u; i < d; ++i) {
    precise float oi = acc[i] / l;
    o[pc.off + qo + i] = oi;
  }
#endif
}
