// What a kernel declares about its arithmetic: the activation quantization it performs,
// its accumulator, the length of its longest accumulation chain, and its output type.
// The oracle computes the declared math exactly and bounds the declared roundings.
#pragma once
#include <cstdint>
#include <string_view>

namespace qgate {

enum class ActQuant : int {
  none,            // activations used as f32
  q8_1,            // per 32: d = f32(amax/127), q = roundf(x/d), stored d as fp16 (ggml q8_1)
  q8_K,            // per 256: iscale = -127/max (signed max), q = nearest_int(iscale*x), d = 1/iscale (f32)
  fp8_e4m3_token,  // per row (token): scale = f32(amax/448), q = e4m3(x/scale) RNE saturating
  q8_0,            // per 32: d = f32(amax/127), q = roundf(x/d), stored d as fp16 (ggml q8_0: no sum field)
  // q8_1 whose offset term reads the block's stored sum s = fp16(d * sum q) in place of the
  // exact sum of the dequantized activations: a weight value a - c with c constant over
  // the 32 elements contributes sum a x' - c s (ggml's q4_1 / q5_1 dot products, its GPU
  // q4_0 / q4_K ones). The oracle computes exactly that; formats without such an offset
  // per 32 elements cannot declare it.
  q8_1_s16,
};
enum class OutType : int { f32, f16, bf16 };

std::string_view act_name(ActQuant a);
std::string_view out_name(OutType o);
double out_unit_roundoff(OutType o);   // 2^-24, 2^-11, 2^-8
double out_half_min_sub(OutType o);    // absolute underflow error of the output rounding
double out_max_finite(OutType o);
double out_round(double v, OutType o);  // the correctly rounded value, as a double (Inf on overflow)

// The longest chain of roundings any term of an output goes through, besides the fixed
// per-term scale roundings the oracle adds itself, as a function of K: a * ceil(K / b) + c.
// Every kernel's depth has this form (a sequential sum over a thread's share of K, then a
// fixed number of combining steps), the plugin ABI's too. The default {1, 1, 0} is K, a
// plain sequential sum.
struct Depth {
  int64_t a = 1, b = 1, c = 0;
  constexpr int64_t operator()(int64_t k) const { return a * ((k + b - 1) / b) + c; }
};

struct Precision {
  ActQuant act = ActQuant::none;
  int acc_fraction_bits = 23;  // accumulator: 23 = f32, 10 = f16 (declared; mutants lie here)
  Depth depth;
  OutType out = OutType::f32;
  // The kernel runs where f32 denormals are flushed to zero (a Vulkan device without
  // shaderDenormPreserveFloat32, CUDA -ftz): every operand or result below 2^-126 may
  // become 0, so the absolute underflow term grows from 2^-149 per operation to 2^-126
  // per operation plus 2^-126 |x'| per weight. Irrelevant unless values are that small.
  bool flush_denormals = false;
};

}  // namespace qgate
