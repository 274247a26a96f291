// The precision of the f32 builtins a fusion or attention kernel declares (KernelInfo::math),
// in ULPs of the result; 1 ULP <= 2^-23 |result| = 2u |result| (u = 2^-24). The oracles of
// fusion.hpp and attention.hpp take it, so a kernel is judged by the arithmetic it runs on.
//
// Defaults: the CPU kernels: IEEE f32 with a fused multiply-add, correctly rounded division
// and square root, libm expf/powf/sinf/cosf taken as 1 ULP.
// Vulkan (kVulkanMath): the Vulkan specification's table "Precision and Operation of SPIR-V
// Instructions" (Appendix A): OpFAdd/OpFSub/OpFMul correctly rounded, OpFDiv 2.5 ULP for a
// divisor in [2^-126, 2^126], exp/exp2 (3 + 2|x|) ULP, inversesqrt 2 ULP, fma "inherited from
// OpFMul followed by OpFAdd" (two roundings), the trigonometric functions of undefined
// precision (the Vulkan kernels compute sin/cos themselves, in f64), denormals may be flushed.
#pragma once
#include <cmath>

namespace qgate {

struct FusedMath {
  double exp_ulp = 1, exp_ulp_per_x = 0;  // exp(x): exp_ulp + exp_ulp_per_x |x| ULP
  double div_ulp = 0.5;                   // a / b (0.5: correctly rounded)
  int rsqrt_roundings = 2;                // 1 / sqrt(v) as a count of u: CPU sqrt, then a division
  int rotate_roundings = 2;               // a c - b s: a product and an fma (CPU); 3 without fma
  double trig_u = 2;                      // |sin^ - sin|, |cos^ - cos| in u (absolute): sinf, cosf 1 ULP
  bool flush_denormals = false;           // f32 denormal results may become zero

  double exp_rel(double x) const { return (exp_ulp + exp_ulp_per_x * std::fabs(x)) * 0x1p-23; }
  double div_rel() const { return div_ulp * 0x1p-23; }
  // Absolute error of one operation whose result may underflow.
  double underflow() const { return flush_denormals ? 0x1p-126 : 0x1p-149; }
};

inline FusedMath vulkan_math(bool flushes_denormals) {
  FusedMath m;
  m.exp_ulp = 3;
  m.exp_ulp_per_x = 2;
  m.div_ulp = 2.5;
  m.rsqrt_roundings = 4;   // inversesqrt: 2 ULP = 4u
  m.rotate_roundings = 3;  // a*c and b*s each rounded, then the sum
  m.trig_u = 8;            // rope_sincos (kernels/vulkan/fused_common.glsl): 3.2u and 5.5u derived
  m.flush_denormals = flushes_denormals;
  return m;
}

// CUDA (kernels/cuda/fused_*.cu), built without fast math (--prec-div=true --prec-sqrt=true
// --ftz=false): division and sqrtf correctly rounded (1 / sqrtf: two roundings), expf and
// sinf/cosf 2 ULP (CUDA Programming Guide, single-precision functions, full range), so
// 2 ULP <= 4u absolute for sin and cos; the rotation counted with 3 roundings (2 where
// nvcc contracts a multiply-add); denormals kept.
inline FusedMath cuda_math() {
  FusedMath m;
  m.exp_ulp = 2;
  m.rotate_roundings = 3;
  m.trig_u = 4;
  return m;
}

}  // namespace qgate
