// Ternary unpackers (tq1_0, tq2_0): q = trit - 1 (tq2_0: 2-bit code - 1), d[0] = d.
// Written in the shape of ggml's generic CPU vec_dot_tq1_0_q8_K / vec_dot_tq2_0_q8_K: tq1_0
// extracts trit n of a byte by multiplying by 3^n in 8 bits (dropping the digits above)
// and taking the top base-3 digit with (t * 3) >> 8; the bytes are walked as one 32-byte
// run (5 trits each), one 16-byte run, and the 4 qh bytes (4 trits each).
#include <cstring>

#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/unpack.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {
namespace {
// Elements n*run + m (n < trits, m < run) from `run` bytes holding `trits` trits each.
int8_t* trit_run(const uint8_t* p, int run, int trits, int8_t* q) {
  static constexpr uint8_t kPow3[6] = {1, 3, 9, 27, 81, 243};
  const bool reversed = QGATE_MUTANT_ON(tq1_0_digit_order_reversed);
  for (int n = 0; n < trits; ++n) {
    const uint8_t mul = kPow3[reversed ? trits - 1 - n : n];
    for (int m = 0; m < run; ++m) {
      const uint8_t t = static_cast<uint8_t>(p[m] * mul);
      *q++ = static_cast<int8_t>(((static_cast<uint16_t>(t) * 3) >> 8) - 1);
    }
  }
  return q;
}
}  // namespace

// TQ1_0: {u8 qs[48]; u8 qh[4]; f16 d}.
void Unpack_tq1_0::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b + 52));
  u.m[0] = 0;
  int8_t* q = trit_run(b, 32, 5, u.q);  // elements 0..159
  q = trit_run(b + 32, 16, 5, q);       // 160..239
  trit_run(b + 48, 4, 4, q);            // 240..255
}

// TQ2_0: {u8 qs[64]; f16 d}; two 32-byte halves, four 2-bit planes each.
void Unpack_tq2_0::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b + 64));
  u.m[0] = 0;
  int8_t* q = u.q;
  for (int j = 0; j < 64; j += 32)
    for (int l = 0; l < 4; ++l)
      for (int m = 0; m < 32; ++m) *q++ = static_cast<int8_t>(((b[j + m] >> (2 * l)) & 3) - 1);
}

}  // namespace qgate::cpu
