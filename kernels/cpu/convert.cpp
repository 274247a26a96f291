#include "kernels/cpu/convert.hpp"

#include <array>

namespace qgate::cpu {
namespace {
template <int E, int M, bool FN>
std::array<float, 256> make_table() {
  std::array<float, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const int s = c >> 7, e = (c >> M) & ((1 << E) - 1), m = c & ((1 << M) - 1);
    const int bias = (1 << (E - 1)) - 1;
    float v;
    if (FN && e == (1 << E) - 1 && m == (1 << M) - 1) v = NAN;
    else if (!FN && e == (1 << E) - 1) v = m ? NAN : INFINITY;
    else if (e == 0) v = std::ldexp(static_cast<float>(m), 1 - bias - M);
    else v = std::ldexp(static_cast<float>(m + (1 << M)), e - bias - M);
    t[c] = s ? -v : v;
  }
  return t;
}
const std::array<float, 256> kE4M3 = make_table<4, 3, true>();
const std::array<float, 256> kE5M2 = make_table<5, 2, false>();
}  // namespace

float e4m3_to_f(uint8_t c) { return kE4M3[c]; }
float e5m2_to_f(uint8_t c) { return kE5M2[c]; }

uint8_t f_to_e4m3(float f) {
  const uint8_t sign = std::signbit(f) ? 0x80 : 0;
  const float a = std::fabs(f);
  if (std::isnan(f)) return 0x7F;
  if (a >= 448.0f) return sign | 0x7E;
  if (a < 0x1p-6f) return sign | static_cast<uint8_t>(std::nearbyint(a * 512.0f));  // 8 -> 0x08, min normal
  int e;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int mant = static_cast<int>(std::nearbyint((m * 2.0f - 1.0f) * 8.0f));
  int ex = e - 1;
  if (mant == 8) { mant = 0; ++ex; }
  if (ex > 8) return sign | 0x7E;
  return sign | static_cast<uint8_t>(((ex + 7) << 3) | mant);
}

}  // namespace qgate::cpu
