// Kernel-side scalar conversions (compiler/hardware paths, independent of the oracle's
// bit-field decoders in oracles/formats/scalar.cpp, which check them).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace qgate::cpu {

// Unaligned little-endian loads (the host is little-endian; blocks are byte-packed).
inline uint16_t rd16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline float h2f(uint16_t h) {
  _Float16 v;
  std::memcpy(&v, &h, 2);
  return static_cast<float>(v);
}
inline uint16_t d2h(double d) {  // GCC's double -> _Float16 is a single correct rounding
  const _Float16 v = static_cast<_Float16>(d);
  uint16_t h;
  std::memcpy(&h, &v, 2);
  return h;
}
inline float bits2f(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
// double -> bf16, round to nearest even, directly from the double's bits (no detour
// through f32, which would round twice).
inline uint16_t d2bf(double d) {
  if (std::isnan(d)) return 0x7FC0;
  const double a = std::fabs(d);
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (a < 0x1p-126) {  // bf16 subnormal: fixed quantum 2^-133
    const double q = std::nearbyint(a * 0x1p133);
    return sign | static_cast<uint16_t>(q);  // q == 128 encodes the smallest normal
  }
  uint64_t b;
  std::memcpy(&b, &a, 8);
  const uint64_t keep = 45;  // 52 - 7 fraction bits dropped
  b += ((1ull << (keep - 1)) - 1) + ((b >> keep) & 1);
  const int64_t exp = static_cast<int64_t>(b >> 52) - 1023;
  if (exp > 127) return sign | 0x7F80;  // overflow to Inf
  const uint16_t frac = static_cast<uint16_t>((b >> keep) & 0x7F);
  return sign | static_cast<uint16_t>(((exp + 127) << 7) | frac);
}

// fp8 E4M3fn and E5M2 decode tables, built from the bit layout at start-up.
float e4m3_to_f(uint8_t c);
float e5m2_to_f(uint8_t c);
// f32 -> E4M3fn, round to nearest even, saturating at 448.
uint8_t f_to_e4m3(float f);

}  // namespace qgate::cpu
