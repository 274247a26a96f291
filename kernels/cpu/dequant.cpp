// CPU dequantization kernels: block -> f32 (one fused multiply-add, one rounding),
// f16 / bf16 (exact in double, then one rounding), for every block format.
#include "kernels/cpu/dequant.hpp"

#include <cmath>
#include <cstring>

#include "kernels/cpu/convert.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {

template <class U, OutType O>
const char* dequant(const uint8_t* w, int64_t n, int64_t k, void* out) {
  if (k % U::elems) return "k is not a multiple of the block size";
  const int64_t nblocks = n * (k / U::elems);
  Unpacked u;
  for (int64_t b = 0; b < nblocks; ++b) {
    U::run(w + b * U::bytes, u);
    for (int i = 0; i < U::elems; ++i) {
      // Mutant: elements 0 and 16 of a block trade places (two 4-bit lanes 16 apart crossed).
      const int e = QGATE_MUTANT_ON(lane_pair_swapped) && U::elems >= 32 && (i == 0 || i == 16) ? i ^ 16 : i;
      const int j = e / U::sub;
      const int64_t o = b * U::elems + i;
      if constexpr (O == OutType::f32) {
        const float v = U::is_float ? u.d[0] * u.f[e] : std::fma(u.d[j], static_cast<float>(u.q[e]), -u.m[j]);
        std::memcpy(static_cast<uint8_t*>(out) + 4 * o, &v, 4);
      } else {
        const double v = U::is_float ? static_cast<double>(u.d[0]) * u.f[e]
                                     : static_cast<double>(u.d[j]) * u.q[e] - static_cast<double>(u.m[j]);
        const uint16_t h = O == OutType::f16 ? d2h(v) : d2bf(v);
        std::memcpy(static_cast<uint8_t*>(out) + 2 * o, &h, 2);
      }
    }
  }
  return nullptr;
}

#define QGATE_INST(U)                                  \
  template const char* dequant<U, OutType::f32>(const uint8_t*, int64_t, int64_t, void*); \
  template const char* dequant<U, OutType::f16>(const uint8_t*, int64_t, int64_t, void*); \
  template const char* dequant<U, OutType::bf16>(const uint8_t*, int64_t, int64_t, void*);
#define QGATE_CPU_BLOCK_FORMAT(fmt, act) QGATE_INST(Unpack_##fmt)
#include "kernels/cpu/kernels.inc"
#undef QGATE_CPU_BLOCK_FORMAT
#undef QGATE_INST

}  // namespace qgate::cpu
