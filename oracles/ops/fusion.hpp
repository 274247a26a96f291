// Reference fusions: residual add + RMSNorm, q/k RMSNorm + RoPE (+ KV-cache write), MoE
// routing and SiLU*mul, each computed exactly in fp64 from the f32 inputs with a bound per
// output element derived from the f32 arithmetic a kernel declares (docs/FUSIONS.md).
//
// u = 2^-24 (f32), gamma_n = n u / (1 - n u). Library functions: expf, powf, sinf, cosf are
// taken as accurate to 1 ulp, i.e. within 2u relative: two roundings each.
//
// add_rmsnorm (h = x + r, y = h * w / sqrt(mean(h^2) + eps)):
//   h is one f32 addition: the kernel must return exactly fl32(x + r) (bound 0).
//   y is computed from that h. Sum of squares along a chain of L additions (L = declared
//   depth(n)), each square rounded once: s(1 + theta_{L+1}); all terms are >= 0, so the
//   error is relative to s. Then /n or *(1/n) (up to 2), + eps (1): v(1 + theta_{L+4}) with
//   eps >= 0 kept inside. sqrt (|sqrt(1+t) - 1| <= |t|) and its rounding: theta_{L+5}; the
//   reciprocal: theta_{L+6} (Higham Lemma 3.1 allows exponents -1); * h, * w: theta_{L+8}
//   (a kernel dividing h / rms saves one). So
//   |y^ - y| <= gamma_{L+8} |y| + underflow (squares below 2^-149:
//   n 2^-150 absolute in s, relative 2^-150/v in y since v >= eps > 0; products 2^-149).
//
// qk_norm_rope: per head the same RMSNorm over d (gamma_{L+8} relative on each normalized
//   element a, b of a rotation pair), then
//     out0 = a cos(t) - b sin(t),  out1 = a sin(t) + b cos(t),  t = pos * base^(-2i/d).
//   The kernel forms t in f32: exponent -2i/d rounded (u relative on the exponent, so
//   |ln base * 2i/d| u relative on the frequency), powf (2u), * pos (u, pos exact in f32):
//   |dt| <= |t| (|ln base| 2i/d + 3) u (1 + 2^-20). sinf/cosf add 2u absolute each. The
//   rotation rounds twice (a product and an fma). So
//     |out^ - out| <= (|a| + |b|)(dt + 2u) + (|a c| + |b s|) gamma_{L+10} (1 + dt + 2u) + 2^-148.
//   V is copied: exact. Rows of the cache other than pos[t] must stay untouched.
//
// moe_route (softmax over E experts -> top-k -> renormalize over the chosen k):
//   e_j = expf(l_j - m): the subtraction rounds (|z_j| u absolute in the exponent, z_j = l_j - m),
//   expf 2u: rho_j = (1 + expm1(|z_j| u))(1 + 2u) - 1. p_j = e_j / sum (depth E - 1 for the
//   sum, 1 for the division):
//     |p^_j - p_j| <= p_j [(1 + rho_j)(1 + u) / ((1 - rho_max)(1 - gamma_{E-1})) - 1] + 2^-148.
//   Weights w_s = p_{j_s} / sum_{c in chosen} p_c: the softmax sum cancels, leaving
//     |w^ - w| <= w [(1 + rho_j)(1 + u)^2 / ((1 - rho_max,chosen)(1 - u)(1 - gamma_{k-1})) - 1] + 2^-148.
//   Tie rule: descending probability; equal logits (hence equal probabilities in any
//   deterministic kernel) put the lower expert index first. Two experts with different
//   logits whose probability intervals [p - bound, p + bound] overlap may come in either
//   order: that is a near-tie, counted and reported, not a failure.
//
// silu_mul (y = g / (1 + exp(-g)) * up): expf (2u), 1 + e (1), the division or reciprocal and
//   multiply (2), * up (1): |y^ - y| <= gamma_6 |y| + 2^-147. Where expf(-g) overflows
//   (g < -88.7) the kernel returns a signed zero: the bound there is |y| itself (< 2^-120 |up|).
//
// Each takes the precision of the builtins the kernel runs on (fused_math.hpp): the terms above
// are the CPU's (expf 2u, correctly rounded division, sqrt and reciprocal 2u); a kernel
// declaring looser builtins (Vulkan: exp (3 + 2|x|) ULP, division 2.5 ULP, inversesqrt 2 ULP,
// no fused multiply-add, denormals flushed) gets those in their place: exp_rel(x) for 2u,
// div_rel for the division's u, rsqrt_roundings for the sqrt+reciprocal's 2, one more
// rounding in the rotation, 2^-126 for each underflow.
//
// Every bound also carries the fp64 oracle's own error ((n + 16) 2^-53 relative), four
// orders of magnitude below the f32 terms.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "oracles/ops/contract.hpp"
#include "oracles/ops/fused_math.hpp"

namespace qgate {

// h: exact_rounding reference of x + res; y: bounded reference. depth = the kernel's
// declared chain length for a sum of n squares.
DecodeError add_rmsnorm_ref(const float* x, const float* res, const float* w, int64_t rows, int64_t n, float eps,
                            int64_t depth, Reference& h, Reference& y, const FusedMath& fm = {});

// One RoPE pairing: element index of the first and second member of pair i of d.
inline void rope_pair(bool neox, int64_t d, int64_t i, int64_t& i0, int64_t& i1) {
  if (neox) i0 = i, i1 = i + d / 2;
  else i0 = 2 * i, i1 = 2 * i + 1;
}

struct QkRopeRef {
  Reference q;  // [tokens * n_head][d]
  Reference k;  // [tokens * n_head_kv][d]: the cache row written for token t, head h
  Reference v;  // [tokens * n_head_kv][d]: exact copy
};
// q [tokens][n_head][d], k and v [tokens][n_head_kv][d], w_q/w_k [d], pos [tokens]
// (0 <= pos < 2^24); depth = declared chain length of a sum of d squares.
DecodeError qk_norm_rope_ref(const float* q, const float* k, const float* v, const float* w_q, const float* w_k,
                             const int32_t* pos, int64_t tokens, int64_t n_head, int64_t n_head_kv, int64_t d,
                             float eps, float rope_base, bool neox, int64_t depth, QkRopeRef& out,
                             const FusedMath& fm = {});

struct RouteRef {
  int64_t rows = 0, experts = 0, top_k = 0;
  std::vector<double> prob, prob_bound;  // [rows][experts]: exact softmax and its bound
  std::vector<double> rho;               // [rows][experts]: relative error bound of each exp term
  std::vector<float> logit;
  std::vector<int32_t> ids;              // [rows][top_k]: exact top-k with the tie rule
  FusedMath math;                        // the kernel's builtins (the judge's weight bound)
};
DecodeError moe_route_ref(const float* logits, int64_t rows, int64_t experts, int64_t top_k, RouteRef& out,
                          const FusedMath& fm = {});

// Judge a kernel's choice: per row, the ids must be distinct, in range, and ordered as
// the tie rule allows (a near-tie between different logits admits either order). Rows
// that break it are counted in bad_rows (the first is described in first_error); rows
// admitted only through a near-tie in near_ties. weights: the reference of the
// renormalized weights for the kernel's own (admissible) choice; inadmissible rows get
// the exact choice's weights.
void moe_route_judge(const RouteRef& ref, const int32_t* ids, Reference& weights, int64_t& bad_rows,
                     int64_t& near_ties, std::string& first_error);

DecodeError silu_mul_ref(const float* gate, const float* up, int64_t rows, int64_t n, Reference& y,
                         const FusedMath& fm = {});

// gate_up (SwiGLU over a merged weight w = [W_gate; W_up], 2N rows): g = W_gate x', u = W_up x'
// with ONE activation quantization x' shared by both halves (the declared p.act), then
// y[m][i] = silu(g_i) u_i, N = w.n / 2. The mat-vec oracle gives g, u and their bounds
// dg, du (accumulation and the f32 rounding of g and u); then, with |silu'| <= 1.1
// (its extremes are 1.0998 and -0.0998, at x = +-2.40), the kernel's silu(g^) u^ lies within
//   1.1 dg (|u| + du) + |silu(g)| du  of y, and its f32 SiLU*mul (gamma_6 as in silu_mul)
// adds gamma_6 M, M = (|silu(g)| + 1.1 dg)(|u| + du) bounding |silu(g^) u^|; where g^ may
// lie below -87 (expf(-g) overflows: the kernel returns a signed zero) M once more, and
// 2^-147 for underflow. out: m x N.
// fm: the precision of the builtins of the SiLU*mul (the CPU's: gamma_6 above; CUDA's expf
// 2 ULP: two roundings more).
DecodeError gate_up_ref(const QTensor& w, const float* x, int64_t m, const Precision& p, Reference& out,
                        const FusedMath& fm = {});

}  // namespace qgate
