// The engine's kernels: a q8_0 x f32 mat-vec as an engine might write it, and a copy with a
// planted bug (every block of a row scaled by the row's first block scale).
#include <cstdint>
#include <cstring>

#include "oracles/formats/scalar.hpp"

namespace engine {

namespace {
template <bool kFirstScaleOnly>
const char* matvec_q8_0(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* out) {
  constexpr int64_t kBlock = 32, kBytes = 34;  // fp16 d, then 32 int8 codes
  float* y = static_cast<float*>(out);
  const int64_t blocks = k / kBlock;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t r = 0; r < n; ++r) {
      float acc = 0.0f;
      for (int64_t b = 0; b < blocks; ++b) {
        const uint8_t* blk = w + (r * blocks + (kFirstScaleOnly ? 0 : b)) * kBytes;
        uint16_t dbits;
        std::memcpy(&dbits, blk, 2);
        const float d = static_cast<float>(qgate::scalar::from_f16(dbits));
        const uint8_t* q = w + (r * blocks + b) * kBytes + 2;
        float s = 0.0f;
        for (int64_t j = 0; j < kBlock; ++j) s += static_cast<float>(static_cast<int8_t>(q[j])) * x[i * k + b * kBlock + j];
        acc += d * s;
      }
      y[i * n + r] = acc;
    }
  return nullptr;
}
}  // namespace

const char* matvec_q8_0_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  return matvec_q8_0<false>(w, n, k, x, m, y);
}
const char* matvec_q8_0_f32_first_scale(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  return matvec_q8_0<true>(w, n, k, x, m, y);
}

}  // namespace engine
