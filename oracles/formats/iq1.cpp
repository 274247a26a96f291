// GGUF 1-bit codebook quants, 256-element super-blocks: iq1_s, iq1_m.
// Layouts: ggml src/ggml-common.h (block_iq1_s, block_iq1_m, iq1m_scale_t); values: ggml
// src/ggml-quants.c dequantize_row_iq1_s / dequantize_row_iq1_m (checked at
// ggml-org/llama.cpp @ 01243c587feceaa5d6a6c2305535ef2f549c48b8). Table: iq1s_grid
// (iq_tables.hpp, transcribed in iq1_tables.cpp).
//
// Every element e (0..255) is decoded on its own. Notation: group g = e/8 (8 weights share
// one 11-bit grid index), lane j = e%8, sub-block ib = e/32 = g/4, l = g%4.
//   x_e = d * (2s + 1) * (grid[idx_g] lane j + delta),   delta = -1/8 if the delta bit is
//   set, else +1/8 (IQ1S_DELTA = IQ1M_DELTA = 0.125); grid lanes are int8 in {-1, 0, +1}.
//   iq1_s (50 B): d@0; qs[32]@2; qh[8] u16@34. idx_g = qs[g] | ((qh[ib] >> 3l) & 7) << 8;
//                 s = (qh[ib] >> 12) & 7 (one scale per 32); delta bit = qh[ib] bit 15 (one
//                 sign per 32).
//   iq1_m (56 B): qs[32]@0; qh[16]@32; scales[8]@48 read as u16 sc[4]. Group g owns nibble
//                 g%2 of qh[g/2]: bits 0..2 = idx bits 8..10, bit 3 = its delta bit (one sign
//                 per 8). Sub-block h = e/16 (h = 2ib + l/2) has s = (sc[h/4] >> 3*(h%4)) & 7.
//                 There is no d field: the top nibble of sc[i] is nibble i of d's binary16
//                 bits, d = f16((sc[0] >> 12) | (sc[1] >> 12) << 4 | (sc[2] >> 12) << 8 |
//                 (sc[3] >> 12) << 12) (iq1m_scale_t).
// Every byte pattern is a valid block; only a non-finite d is rejected (for iq1_m, the d
// assembled from the four nibbles).
//
// Exactness: d is binary16 (11 significant bits), 2s + 1 <= 15 (4 bits), and grid + delta =
// (8*grid +- 1)/8 with |8*grid +- 1| <= 9 (4 bits) over a power of two: each product has at
// most 19 significant bits and is exact in double. No element is ever 0 (|grid + delta| >=
// 1/8), so there is no zero code. mag = |d (2s+1) grid| + |d (2s+1) delta|: dot products
// apply the delta as a separate term (delta * sum x per sub-block), so their rounding scales
// with both parts.
//
// BlockFields: codes = the 32 grid indices idx_g (11 bits, code_levels 2048); fields =
//   iq1_s: d (f16), scales[8] (3 bit), delta_signs[8] (1 bit)
//          16 + 24 + 8 + 32*11 = 400 bits = 50 bytes;
//   iq1_m: d (f16, stored as the four scale-word nibbles), scales[16] (3 bit),
//          delta_signs[32] (1 bit)       16 + 48 + 32 + 32*11 = 448 bits = 56 bytes.
// Every bit of the block has exactly one owner, so pack(unpack(b)) == b for every pattern.
#include <cmath>
#include <cstring>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/iq_tables.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kQK = 256, kGroups = 32;

// Lane j of a grid entry as the signed value it stores (-1, 0 or +1).
int grid_lane(int idx, int j) { return static_cast<int8_t>((iq::kIq1sGrid[idx] >> (8 * j)) & 0xFF); }

// d * (2s + 1) * (grid + delta), delta = -1/8 when the delta bit is set.
void put_element(double d, int s, int grid, bool delta_negative, double& v, double& mag) {
  const double delta = delta_negative ? -iq::kIq1sDelta : iq::kIq1sDelta;
  v = d * (2 * s + 1) * (grid + delta);
  mag = std::fabs(d * (2 * s + 1)) * (std::abs(grid) + iq::kIq1sDelta);
}

// ---- iq1_s: {f16 d; u8 qs[32]; u16 qh[8]} = 50 bytes.
constexpr int kSBytes = 50, kSQs = 2, kSQh = 34;
uint32_t s_qh(const uint8_t* b, int ib) { return le::u16(b + kSQh + 2 * ib); }
int s_index(const uint8_t* b, int g) {
  return b[kSQs + g] | static_cast<int>(((s_qh(b, g / 4) >> (3 * (g % 4))) & 7) << 8);
}
int s_scale(const uint8_t* b, int ib) { return static_cast<int>((s_qh(b, ib) >> 12) & 7); }
uint32_t s_delta_bit(const uint8_t* b, int ib) { return s_qh(b, ib) >> 15; }

DecodeError decode_iq1_s(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("iq1_s", "d", le::u16(b));
  for (int e = 0; e < kQK; ++e) {
    const int g = e / 8, ib = e / 32;
    put_element(d, s_scale(b, ib), grid_lane(s_index(b, g), e % 8), s_delta_bit(b, ib) != 0, v[e], mag[e]);
  }
  return {};
}
// fields: d, scales[8] (3 bit), delta_signs[8] (1 bit)
void pack_iq1_s(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kSBytes);
  le::put16(b, f.fields[0]);
  for (int ib = 0; ib < 8; ++ib) {
    uint32_t qh = ((f.fields[1 + ib] & 7) << 12) | ((f.fields[9 + ib] & 1) << 15);
    for (int l = 0; l < 4; ++l) {
      const uint32_t idx = static_cast<uint32_t>(f.codes[4 * ib + l]) & 2047;
      b[kSQs + 4 * ib + l] = static_cast<uint8_t>(idx & 0xFF);
      qh |= (idx >> 8) << (3 * l);
    }
    le::put16(b + kSQh + 2 * ib, qh);
  }
}
void unpack_iq1_s(const uint8_t* b, BlockFields& f) {
  f.codes.resize(kGroups);
  f.fields.assign(1 + 8 + 8, 0);
  f.fields[0] = le::u16(b);
  for (int g = 0; g < kGroups; ++g) f.codes[g] = s_index(b, g);
  for (int ib = 0; ib < 8; ++ib) {
    f.fields[1 + ib] = static_cast<uint32_t>(s_scale(b, ib));
    f.fields[9 + ib] = s_delta_bit(b, ib);
  }
}

// ---- iq1_m: {u8 qs[32]; u8 qh[16]; u8 scales[8]} = 56 bytes.
constexpr int kMBytes = 56, kMQs = 0, kMQh = 32, kMScales = 48;
static_assert(kQK == block::iq1_s::elems && kSBytes == block::iq1_s::bytes, "the layout matches the formats.inc row");
static_assert(kQK == block::iq1_m::elems && kMBytes == block::iq1_m::bytes, "the layout matches the formats.inc row");
uint32_t m_word(const uint8_t* b, int w) { return le::u16(b + kMScales + 2 * w); }
uint32_t m_nibble(const uint8_t* b, int g) { return (b[kMQh + g / 2] >> (4 * (g % 2))) & 0xF; }
int m_index(const uint8_t* b, int g) { return b[kMQs + g] | static_cast<int>((m_nibble(b, g) & 7) << 8); }
uint32_t m_delta_bit(const uint8_t* b, int g) { return m_nibble(b, g) >> 3; }
int m_scale(const uint8_t* b, int h) { return static_cast<int>((m_word(b, h / 4) >> (3 * (h % 4))) & 7); }
// The binary16 bits of d: nibble i is the top nibble of scale word i.
uint32_t m_d_bits(const uint8_t* b) {
  uint32_t bits = 0;
  for (int i = 0; i < 4; ++i) bits |= (m_word(b, i) >> 12) << (4 * i);
  return bits;
}

DecodeError decode_iq1_m(const uint8_t* b, double* v, double* mag) {
  const uint32_t dbits = m_d_bits(b);
  const double d = scalar::from_f16(static_cast<uint16_t>(dbits));
  if (!std::isfinite(d)) return non_finite("iq1_m", "d", dbits);
  for (int e = 0; e < kQK; ++e) {
    const int g = e / 8;
    put_element(d, m_scale(b, e / 16), grid_lane(m_index(b, g), e % 8), m_delta_bit(b, g) != 0, v[e], mag[e]);
  }
  return {};
}
// fields: d, scales[16] (3 bit), delta_signs[32] (1 bit)
void pack_iq1_m(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kMBytes);
  for (int g = 0; g < kGroups; ++g) {
    const uint32_t idx = static_cast<uint32_t>(f.codes[g]) & 2047;
    b[kMQs + g] = static_cast<uint8_t>(idx & 0xFF);
    const uint32_t nib = (idx >> 8) | ((f.fields[17 + g] & 1) << 3);
    b[kMQh + g / 2] |= static_cast<uint8_t>(nib << (4 * (g % 2)));
  }
  for (int w = 0; w < 4; ++w) {
    uint32_t word = ((f.fields[0] >> (4 * w)) & 0xF) << 12;
    for (int k = 0; k < 4; ++k) word |= (f.fields[1 + 4 * w + k] & 7) << (3 * k);
    le::put16(b + kMScales + 2 * w, word);
  }
}
void unpack_iq1_m(const uint8_t* b, BlockFields& f) {
  f.codes.resize(kGroups);
  f.fields.assign(1 + 16 + 32, 0);
  f.fields[0] = m_d_bits(b);
  for (int h = 0; h < 16; ++h) f.fields[1 + h] = static_cast<uint32_t>(m_scale(b, h));
  for (int g = 0; g < kGroups; ++g) {
    f.codes[g] = m_index(b, g);
    f.fields[17 + g] = m_delta_bit(b, g);
  }
}

constexpr FieldSpec kSFields[] = {{"d", FieldKind::f16, 1},
                                  {"scales", FieldKind::ubits, 8, false, 3},
                                  {"delta_signs", FieldKind::ubits, 8, false, 1}};
constexpr FieldSpec kMFields[] = {{"d", FieldKind::f16, 1},
                                  {"scales", FieldKind::ubits, 16, false, 3},
                                  {"delta_signs", FieldKind::ubits, 32, false, 1}};
}  // namespace

QGATE_DEFINE_FORMAT(iq1_s, 2048, -1, false, kSFields, "ggml src/ggml-common.h block_iq1_s, iq1s_grid, IQ1S_DELTA; src/ggml-quants.c dequantize_row_iq1_s", nullptr, nullptr, kGroups)
QGATE_DEFINE_FORMAT(iq1_m, 2048, -1, false, kMFields, "ggml src/ggml-common.h block_iq1_m, iq1m_scale_t, iq1s_grid, IQ1M_DELTA; src/ggml-quants.c dequantize_row_iq1_m", nullptr, nullptr, kGroups)

}  // namespace qgate::formats
