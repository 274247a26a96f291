// Reference contractions: y[m][n] = sum_k W[n][k] * x'[m][k], where x' is the
// activation after the kernel's declared quantization, computed in fp64 with a
// per-element bound on how far a correct kernel with the declared precision may land.
//
// Bound: with S = sum_k mag_w[n][k] * |x'[m][k]|,
//   bound = gamma_{L+4}(u_acc) * S                        accumulation + per-term roundings
//         + u_out * (|y| + gamma*S) + out_underflow        output rounding
//         + 4K * 2^-149                                    f32 underflow in products/scales
//         + sum_k |W[n][k]| * tie_step[m][k]               admissible activation-code ties
//         + 2^-50 * S                                      the fp64 oracle's own summation error
// L = the kernel's declared depth(K); +4 covers dequantization, the scale product, the
// term product and a min-term subtraction, which every kernel here may round once each.
#pragma once
#include <cstdint>
#include <vector>

#include "oracles/formats/format.hpp"
#include "oracles/ops/precision.hpp"
#include "oracles/ops/quantize_act.hpp"

namespace qgate {

struct Reference {
  int64_t rows = 0, cols = 0;
  std::vector<double> value;  // exact declared math
  std::vector<double> bound;  // admissible |got - value|
  // When set, the kernel must produce exactly out_round(value) (dequantization).
  bool exact_rounding = false;
  OutType out = OutType::f32;
  int64_t tie_elements = 0;   // activation elements with an admissible alternative code
};

double gamma(int64_t n, int fraction_bits);

// x is [m][k] f32 row-major. Errors: shape/format mismatch, corrupt weights.
DecodeError matmul_ref(const QTensor& w, const float* x, int64_t m, const Precision& p, Reference& out);

// Dequantization: value = exact element, exact_rounding set.
DecodeError dequant_ref(const QTensor& w, OutType out, Reference& ref);

}  // namespace qgate
