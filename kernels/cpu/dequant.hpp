// Generic CPU kernels over an unpacker (unpack.hpp): declarations for registry.cpp.
#pragma once
#include <cstdint>

#include "kernels/cpu/unpack.hpp"
#include "oracles/ops/precision.hpp"

namespace qgate::cpu {

template <class U, OutType O>
const char* dequant(const uint8_t* w, int64_t n, int64_t k, void* out);
template <class U>
const char* matvec_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
template <class U>
const char* gemm_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
template <class U, ActQuant A>
const char* matvec_qact(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
template <class U, ActQuant A>  // kernels/cpu/gate_up.cpp
const char* gate_up_qact(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
template <class U, ActQuant A>
const char* gemm_qact(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);

// Elements per activation block of A; a weight block may span several (nvfp4's 64 and
// q1_0's 128 elements against q8_1's 32).
template <class U, ActQuant A>
constexpr int act_block_elems() {
  return A == ActQuant::q8_K ? 256 : A == ActQuant::q8_1 ? 32 : U::elems;
}
// The integer-dot kernels' rounding chain per weight block besides one accumulation per
// block (matmul_qact.cpp): two per piece (a sub-block within one activation block) of an
// activation block, the activation scale's product, the sum over the activation blocks of
// the weight block, and 2 more. fp8: one per element, then 3.
template <class U, ActQuant A>
constexpr int64_t qact_inner_depth() {
  if constexpr (U::is_float) {
    return U::elems + 3;
  } else {
    constexpr int ab = act_block_elems<U, A>(), piece = U::sub < ab ? U::sub : ab;
    return 2 * (ab / piece) + 3 + (U::elems / ab - 1);
  }
}

inline constexpr int kGemmTileM = 4, kGemmTileN = 4;
inline constexpr int kMatvecLanes = 8;

}  // namespace qgate::cpu
