// IQ2 unpackers (iq2_xxs, iq2_xs, iq2_s): walk a block the way ggml's CPU / CUDA dot
// products do (word loads, one 8-weight grid row per index, a sign byte per row) and emit
//   q[i] = +-grid byte (|q| <= 43),  d[j] = d * (2s + 1) / 8,  m[j] = 0
// so that x = d[j] * q[i] = d * (0.5 + s) * 0.25 * grid * sign exactly (d has 11 significant
// bits, 2s + 1 five: d[j] is exact in f32, and so is every d[j] * q[i]).
// The seven stored sign bits of iq2_xxs / iq2_xs are expanded with the table-free parity
// rule of ggml-cuda's unpack_ksigns (the eighth sign makes the count of negatives even)
// instead of a ksigns_iq2xs lookup; fixtures/golden/iq2_test.cpp proves the two equal.
#include <bit>
#include <cstring>

#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/unpack.hpp"
#include "kernels/mutant.hpp"
#include "oracles/formats/iq_tables.hpp"

namespace qgate::cpu {
namespace {

static_assert(std::endian::native == std::endian::little, "grid rows are read as bytes of a little-endian u64");


// The 8 sign bits of a 7-bit ksigns index: bit 7 = parity of bits 0..6.
inline uint32_t parity_signs(uint32_t v7) { return v7 | ((static_cast<uint32_t>(std::popcount(v7)) & 1u) << 7); }

// One 8-weight row: grid magnitudes with sign bit j negating weight j.
inline void signed_row(const uint64_t* grid_row, uint32_t signs, int8_t* q) {
  const uint8_t* g = reinterpret_cast<const uint8_t*>(grid_row);
  for (int j = 0; j < 8; ++j) q[j] = static_cast<int8_t>((signs >> j) & 1 ? -g[j] : g[j]);
}

// d * (2s + 1) / 8 for the two nibble scales of one byte (iq2_xs, iq2_s: one per 16 weights).
inline void nibble_scales(float d, uint8_t sc, float* out) {
  out[0] = d * static_cast<float>(2 * (sc & 0xF) + 1) * 0.125f;
  out[1] = d * static_cast<float>(2 * (sc >> 4) + 1) * 0.125f;
}

}  // namespace

// IQ2_XXS: d, then per 32 weights two u32 words: a0 = four 8-bit grid indices, a1 = four
// 7-bit sign indices (bits 7l..7l+6) and the 4-bit scale in bits 28..31.
void Unpack_iq2_xxs::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  const uint8_t* qs = b + 2;
  int8_t* q = u.q;
  for (int ib = 0; ib < 8; ++ib, qs += 8) {
    uint32_t aux32[2];
    std::memcpy(aux32, qs, 8);
    const uint8_t* idx = reinterpret_cast<const uint8_t*>(&aux32[0]);
    const uint32_t ls = (aux32[1] >> 27) | 1u;  // 2s + 1 (bit 27 belongs to the 4th sign index)
    u.d[ib] = d * static_cast<float>(ls) * 0.125f;
    u.m[ib] = 0;
    for (int l = 0; l < 4; ++l, q += 8) {
      uint32_t signs = parity_signs((aux32[1] >> (7 * l)) & 127u);
      if (QGATE_MUTANT_ON(iq_parity_sign_flipped)) signs ^= 0x80u;
      signed_row(iq::kIq2xxsGrid + idx[l], signs, q);
    }
  }
}

// IQ2_XS: d, qs[32] u16 (9-bit grid index | 7-bit sign index << 9), scales[8] (two nibbles
// per 32 weights: low for the first 16, high for the second).
void Unpack_iq2_xs::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  const uint8_t* qs = b + 2;
  const uint8_t* sc = b + 66;
  const uint32_t index_mask = QGATE_MUTANT_ON(iq2_xs_index_bit9_dropped) ? 0xFFu : 0x1FFu;
  int8_t* q = u.q;
  for (int ib = 0; ib < 8; ++ib) {
    nibble_scales(d, sc[ib], u.d + 2 * ib);
    u.m[2 * ib] = u.m[2 * ib + 1] = 0;
    for (int l = 0; l < 4; ++l, q += 8) {
      const uint32_t w = rd16(qs + 2 * (4 * ib + l));
      signed_row(iq::kIq2xsGrid + (w & index_mask), parity_signs(w >> 9), q);
    }
  }
}

// IQ2_S: d, qs[32] low index bytes, signs[32] explicit sign bytes, qh[8] (index bits 8-9 of
// row l at bits 2l..2l+1), scales[8] as IQ2_XS.
void Unpack_iq2_s::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  const uint8_t* qs = b + 2;
  const uint8_t* signs = b + 34;
  const uint8_t* qh = b + 66;
  const uint8_t* sc = b + 74;
  int8_t* q = u.q;
  for (int ib = 0; ib < 8; ++ib, qs += 4, signs += 4) {
    nibble_scales(d, sc[ib], u.d + 2 * ib);
    u.m[2 * ib] = u.m[2 * ib + 1] = 0;
    for (int l = 0; l < 4; ++l, q += 8) {
      const uint32_t idx = qs[l] | ((static_cast<uint32_t>(qh[ib]) << (8 - 2 * l)) & 0x300u);
      signed_row(iq::kIq2sGrid + idx, signs[l], q);
    }
  }
}

}  // namespace qgate::cpu
