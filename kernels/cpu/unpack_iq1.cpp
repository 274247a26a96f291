// IQ1 unpackers (iq1_s, iq1_m): walk a block the way ggml's CPU dot products
// (ggml_vec_dot_iq1_s_q8_K / _iq1_m_q8_K) do: one qh word per 32 weights (iq1_s) or one qh
// byte per 16 (iq1_m), one 8-weight int8 grid row per 11-bit index, and emit
//   q[i] = 8 * grid + delta8 (delta8 = +-1, |q| <= 9),  d[j] = d * (2s + 1) / 8,  m[j] = 0
// so that x = d[j] * q[i] = d * (2s + 1) * (grid +- 1/8) exactly (d has 11 significant bits
// and 2s + 1 four: d[j] is exact in f32, and so is every d[j] * q[i]).
// The delta is folded into the integer code (grid * 8 + delta8) instead of a separate
// sum-of-activations term, so the generic kernels need no offset (m = 0).
#include <bit>
#include <cstring>

#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/unpack.hpp"
#include "kernels/mutant.hpp"
#include "oracles/formats/iq_tables.hpp"

namespace qgate::cpu {
namespace {

static_assert(std::endian::native == std::endian::little, "grid rows are read as int8 lanes of a little-endian u64");


// One 8-weight row: q = 8 * grid + delta8 for each int8 lane of the grid entry.
inline void delta_row(const uint64_t* grid_row, int delta8, int8_t* q) {
  const int8_t* g = reinterpret_cast<const int8_t*>(grid_row);
  for (int j = 0; j < 8; ++j) q[j] = static_cast<int8_t>(8 * g[j] + delta8);
}

}  // namespace

// IQ1_S: d, qs[32] (low 8 index bits), qh[8] u16 per 32 weights: bits 3l..3l+2 = index bits
// 8..10 of row l, bits 12..14 = s, bit 15 = delta sign (set: -1/8).
void Unpack_iq1_s::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  const uint8_t* qs = b + 2;
  const uint8_t* qh = b + 34;
  int8_t* q = u.q;
  for (int ib = 0; ib < 8; ++ib, qs += 4) {
    const uint32_t h = rd16(qh + 2 * ib);
    u.d[ib] = d * static_cast<float>(2 * ((h >> 12) & 7) + 1) * 0.125f;
    u.m[ib] = 0;
    int delta8 = (h & 0x8000) ? -1 : 1;
    if (QGATE_MUTANT_ON(iq1_delta_sign_inverted)) delta8 = -delta8;
    for (int l = 0; l < 4; ++l, q += 8) delta_row(iq::kIq1sGrid + (qs[l] | ((h >> (3 * l)) & 7) << 8), delta8, q);
  }
}

// IQ1_M: qs[32], qh[16] (one nibble per 8 weights: index bits 8..10 | delta sign << 3),
// scales[8] as u16 sc[4]: four 3-bit scales per word (one per 16 weights) and, in the top
// nibbles, the four nibbles of d's binary16 bits (iq1m_scale_t).
void Unpack_iq1_m::run(const uint8_t* b, Unpacked& u) {
  const uint8_t* qs = b;
  const uint8_t* qh = b + 32;
  uint16_t sc[4];
  std::memcpy(sc, b + 48, 8);
  const uint16_t dbits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00) |
                                               (sc[3] & 0xF000));
  const float d = h2f(dbits);
  int8_t* q = u.q;
  for (int ib = 0; ib < 8; ++ib, qs += 4, qh += 2) {
    const uint32_t s6 = sc[ib / 2] >> (6 * (ib % 2));
    u.d[2 * ib + 0] = d * static_cast<float>(2 * (s6 & 7) + 1) * 0.125f;
    u.d[2 * ib + 1] = d * static_cast<float>(2 * ((s6 >> 3) & 7) + 1) * 0.125f;
    u.m[2 * ib + 0] = u.m[2 * ib + 1] = 0;
    for (int l = 0; l < 4; ++l, q += 8) {
      const uint32_t nib = (qh[l / 2] >> (4 * (l % 2))) & 0xF;
      delta_row(iq::kIq1sGrid + (qs[l] | (nib & 7) << 8), (nib & 8) ? -1 : 1, q);
    }
  }
}

}  // namespace qgate::cpu
