// Reference attention: O = softmax(scale * Q K^T + causal mask) V with grouped-query heads,
// for decode (one query against a cache) and prefill (several queries, causal), exact in
// fp64, with a per-element bound derived from the arithmetic the kernel declares: f32
// scores along a chain of Lqk additions, f32 exponentials, P rounded to its declared type
// (f32, f16, bf16) before P.V, f32 accumulation, and for online softmax the rescales
// between tiles. A low-precision emulation (P rounded to the declared type in fp64) comes
// with it, so the error a precision implies can be seen apart from a kernel's.
//
// Derivation (docs/FUSIONS.md has it in full). Query row t, head h, visible keys j (n of
// them), exact scores s_j, m = max s_j, w_j = exp(s_j - m) (so the largest is 1), D = sum w_j,
// P_j = w_j / D, O_i = sum_j P_j V_ji. Any kernel of the declared form returns
//   O^_i = N^_i / D^  with  N^_i = sum_j w_j (1 + a_j) V_ji (1 + theta_{LN}),  D^ = sum_j w_j (1 + a'_j)(1 + theta_{LD}),
// |a_j|, |a'_j| <= eta_j, where eta_j collects every relative perturbation of one weight:
//   score:   |s^_j - s_j| <= ds_j = |scale| gamma_{Lqk+1} sum_d |q_d k_jd|, and the shift
//            s^_j - m^ rounds once more (u |z_j| with z_j = s_j - m, plus 2 max ds): the
//            exponent moves by at most e_j = ds_j + u (|z_j| + 2 max ds); exp(e_j) - 1.
//            (The shift m^ itself cancels between N and D: softmax is shift invariant.)
//   expf:    2u.
//   P:       u_P, the unit roundoff of P's type (eager: the f32 division e/l).
//   rescale: online softmax multiplies earlier tiles by expf(m_old - m_new): per tile 2u
//            and u |m_old - m_new|; over all tiles expm1(2u T + u (R + 2 max ds)), T tiles,
//            R = m - min s_j.
//   eta_j = (1 + expm1(e_j))(1 + 2u)(1 + u_P)(1 + rescale) - 1.
// Absolute: P entries below the type's normal range round with absolute error
// half_min_sub(P) (f16: 2^-25), expf underflows below 2^-149: abs_w = both, per weight.
// Accumulation depths: LN = n + T + 2 (one fma per key, a rescale per tile, the product),
// LD = n + T + 1. With
//   A_i = sum_j P_j |V_ji| ((1 + eta_j)(1 + gamma_LN) - 1) + abs_w sum_j |V_ji| (1 + gamma_LN) / D
//   B   = sum_j P_j ((1 + eta_j)(1 + gamma_LD) - 1) + n abs_w (1 + gamma_LD) / D
// |N^/D^ - N/D| <= (A_i + |O_i| B) / (1 - B), and the final division rounds once more:
//   bound_i = (A_i + |O_i| B) / (1 - B) (1 + u) + u |O_i| + 2^-149 + oracle slack,
// oracle slack = (n + d + 16) 2^-52 (sum_j P_j |V_ji| + |O_i|) (fp64 scores, exp and sums).
#pragma once
#include <cstdint>
#include <vector>

#include "oracles/ops/contract.hpp"
#include "oracles/ops/fused_math.hpp"

namespace qgate {

struct AttentionShape {
  int64_t tokens = 1;     // queries (1 = decode); query t sits at position kv_len - tokens + t
  int64_t n_head = 1, n_head_kv = 1, d = 1;
  int64_t kv_len = 1;     // cached rows used (rows 0..kv_len-1)
  int64_t kv_cap = 1;     // rows allocated per kv head (row stride)
  double scale = 1;
};

struct AttentionPrecision {
  int64_t qk_depth = 0;        // chain length of the q.k dot product (0 = d)
  int64_t tile = 0;            // keys per online-softmax tile; 0 = eager (one pass, P materialized)
  OutType p_type = OutType::f32;
  FusedMath math{};            // the kernel's builtins: exp_rel for the 2u of expf, div_rel for the
                               // divisions (eager P = e / l, the final N / D), underflow at 2^-126 if flushed
};

// q [tokens][n_head][d], k/v [n_head_kv][kv_cap][d]. out: [tokens * n_head][d].
// emulated (optional): the same attention with every unnormalized weight exp(s_j - m)
// rounded to p_type before P.V and the sum (fp64 otherwise).
DecodeError attention_ref(const float* q, const float* k, const float* v, const AttentionShape& s,
                          const AttentionPrecision& p, Reference& out, std::vector<double>* emulated = nullptr);

}  // namespace qgate
