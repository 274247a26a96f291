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

inline constexpr int kGemmTileM = 4, kGemmTileN = 4;
inline constexpr int kMatvecLanes = 8;

}  // namespace qgate::cpu
