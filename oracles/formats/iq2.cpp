// GGUF 2-bit codebook quants, 256-element super-blocks: iq2_xxs, iq2_xs, iq2_s.
// Layouts: ggml src/ggml-common.h (block_iq2_xxs, block_iq2_xs, block_iq2_s); values: ggml
// src/ggml-quants.c dequantize_row_iq2_xxs / _xs / _s. Tables: iq_tables.hpp (transcribed
// in iq2_tables.cpp).
//
// Every element e (0..255) is decoded on its own. Notation: group g = e/8 (8 weights share
// one grid index and one sign byte), lane j = e%8, sub-block ib = e/32 = g/4, l = g%4.
//   x_e = d * (0.5 + s) * 0.25 * grid[idx_g] byte j * (sign bit j of signs_g ? -1 : +1)
// with s the 4-bit scale of e's sub-block:
//   iq2_xxs (66 B):  d@0, then per ib 8 bytes at 2+8ib: bytes 0..3 = idx of l = 0..3 (8 bit,
//                    iq2xxs_grid); the next 4 bytes are a little-endian word w: bits 7l..7l+6
//                    = sign index of group l into ksigns_iq2xs, bits 28..31 = s (per 32).
//   iq2_xs  (74 B):  d@0, qs[32] u16 at 2: qs[g] bits 0..8 = idx (iq2xs_grid), bits 9..15 =
//                    sign index; scales[8] at 66: low nibble of scales[ib] for groups l = 0, 1,
//                    high nibble for l = 2, 3 (one scale per 16 elements: e/16).
//   iq2_s   (82 B):  d@0, qs[64] at 2: qs[g] (g < 32) = idx bits 0..7, qs[32+g] = the explicit
//                    sign byte of group g; qh[8] at 66: bits 2l..2l+1 of qh[ib] = idx bits 8..9
//                    (iq2s_grid); scales[8] at 74 as iq2_xs.
// The sign index of iq2_xxs / iq2_xs selects ksigns_iq2xs[i] = i | parity(i) << 7: seven
// stored signs and an eighth that makes the count of negatives even. Every byte pattern is
// a valid block; only a non-finite d is rejected.
//
// Exactness: d is binary16 (11 significant bits), 0.5 + s = (2s + 1)/2 with 2s + 1 <= 31
// (5 bits), the grid byte <= 43 (6 bits) and 0.25 a power of two: each product has at most
// 22 significant bits and is exact in double.
//
// BlockFields: codes = the 32 grid indices idx_g (code_levels = grid size); fields = d (f16),
// signs[32] (7-bit sign indices, or 8-bit sign bytes for iq2_s), scales (4-bit s, per 32 for
// iq2_xxs, per 16 otherwise). Those widths add up to exactly the block's bits (66, 74 and 82
// bytes), so every bit has one owner and pack(unpack(b)) == b for every byte pattern.
#include <cmath>
#include <cstring>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/iq_tables.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kQK = 256, kGroups = 32;

int grid_byte(uint64_t entry, int j) { return static_cast<int>((entry >> (8 * j)) & 0xFF); }
bool negative(uint32_t sign_byte, int j) { return (sign_byte & iq::kMaskIq2xs[j]) != 0; }

// One element: d * (0.5 + s) * 0.25 * magnitude, negated when its sign bit is set.
void put_element(double d, int s, int magnitude, bool neg, double& v, double& mag) {
  const double a = d * (0.5 + s) * 0.25 * magnitude;
  v = neg ? -a : a;
  mag = std::fabs(a);
}

// ---- iq2_xxs: {f16 d; u16 qs[32]} = 66 bytes.
constexpr int kXxsBytes = 66;
const uint8_t* xxs_sub(const uint8_t* b, int ib) { return b + 2 + 8 * ib; }
int xxs_index(const uint8_t* b, int g) { return xxs_sub(b, g / 4)[g % 4]; }
uint32_t xxs_word(const uint8_t* b, int ib) { return le::u32(xxs_sub(b, ib) + 4); }
uint32_t xxs_sign_index(const uint8_t* b, int g) { return (xxs_word(b, g / 4) >> (7 * (g % 4))) & 127; }
int xxs_scale(const uint8_t* b, int ib) { return static_cast<int>(xxs_word(b, ib) >> 28); }

DecodeError decode_iq2_xxs(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("iq2_xxs", "d", le::u16(b));
  for (int e = 0; e < kQK; ++e) {
    const int g = e / 8, j = e % 8;
    const uint32_t signs = iq::kSignsIq2xs[xxs_sign_index(b, g)];
    put_element(d, xxs_scale(b, e / 32), grid_byte(iq::kIq2xxsGrid[xxs_index(b, g)], j), negative(signs, j), v[e],
                mag[e]);
  }
  return {};
}
// fields: d, signs[32] (7 bit), scales[8] (4 bit)
void pack_iq2_xxs(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kXxsBytes);
  le::put16(b, f.fields[0]);
  for (int ib = 0; ib < 8; ++ib) {
    uint8_t* sub = b + 2 + 8 * ib;
    uint32_t w = (f.fields[33 + ib] & 0xF) << 28;
    for (int l = 0; l < 4; ++l) {
      sub[l] = static_cast<uint8_t>(f.codes[4 * ib + l] & 0xFF);
      w |= (f.fields[1 + 4 * ib + l] & 127) << (7 * l);
    }
    le::put32(sub + 4, w);
  }
}
void unpack_iq2_xxs(const uint8_t* b, BlockFields& f) {
  f.codes.resize(kGroups);
  f.fields.assign(1 + 32 + 8, 0);
  f.fields[0] = le::u16(b);
  for (int g = 0; g < kGroups; ++g) {
    f.codes[g] = xxs_index(b, g);
    f.fields[1 + g] = xxs_sign_index(b, g);
  }
  for (int ib = 0; ib < 8; ++ib) f.fields[33 + ib] = static_cast<uint32_t>(xxs_scale(b, ib));
}

// ---- iq2_xs: {f16 d; u16 qs[32]; u8 scales[8]} = 74 bytes.
constexpr int kXsBytes = 74, kXsQs = 2, kXsScales = 66;
uint32_t xs_word(const uint8_t* b, int g) { return le::u16(b + kXsQs + 2 * g); }
// The 4-bit scale of the 16 elements starting at 16*h (h = 0..15): nibble h%2 of scales[h/2].
int nibble_scale(const uint8_t* scales, int h) { return (scales[h / 2] >> (4 * (h % 2))) & 0xF; }

DecodeError decode_iq2_xs(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("iq2_xs", "d", le::u16(b));
  for (int e = 0; e < kQK; ++e) {
    const int g = e / 8, j = e % 8;
    const uint32_t w = xs_word(b, g);
    const uint32_t signs = iq::kSignsIq2xs[w >> 9];
    put_element(d, nibble_scale(b + kXsScales, e / 16), grid_byte(iq::kIq2xsGrid[w & 511], j), negative(signs, j),
                v[e], mag[e]);
  }
  return {};
}
// fields: d, signs[32] (7 bit), scales[16] (4 bit)
void pack_iq2_xs(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kXsBytes);
  le::put16(b, f.fields[0]);
  for (int g = 0; g < kGroups; ++g)
    le::put16(b + kXsQs + 2 * g, (static_cast<uint32_t>(f.codes[g]) & 511) | ((f.fields[1 + g] & 127) << 9));
  for (int h = 0; h < 16; ++h) b[kXsScales + h / 2] |= static_cast<uint8_t>((f.fields[33 + h] & 0xF) << (4 * (h % 2)));
}
void unpack_iq2_xs(const uint8_t* b, BlockFields& f) {
  f.codes.resize(kGroups);
  f.fields.assign(1 + 32 + 16, 0);
  f.fields[0] = le::u16(b);
  for (int g = 0; g < kGroups; ++g) {
    f.codes[g] = static_cast<int32_t>(xs_word(b, g) & 511);
    f.fields[1 + g] = xs_word(b, g) >> 9;
  }
  for (int h = 0; h < 16; ++h) f.fields[33 + h] = static_cast<uint32_t>(nibble_scale(b + kXsScales, h));
}

// ---- iq2_s: {f16 d; u8 qs[64]; u8 qh[8]; u8 scales[8]} = 82 bytes.
constexpr int kSBytes = 82, kSQs = 2, kSSigns = 34, kSQh = 66, kSScales = 74;
static_assert(kQK == block::iq2_xxs::elems && kXxsBytes == block::iq2_xxs::bytes, "the layout matches the formats.inc row");
static_assert(kQK == block::iq2_xs::elems && kXsBytes == block::iq2_xs::bytes, "the layout matches the formats.inc row");
static_assert(kQK == block::iq2_s::elems && kSBytes == block::iq2_s::bytes, "the layout matches the formats.inc row");
int s_index(const uint8_t* b, int g) { return b[kSQs + g] | (((b[kSQh + g / 4] >> (2 * (g % 4))) & 3) << 8); }

DecodeError decode_iq2_s(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("iq2_s", "d", le::u16(b));
  for (int e = 0; e < kQK; ++e) {
    const int g = e / 8, j = e % 8;
    put_element(d, nibble_scale(b + kSScales, e / 16), grid_byte(iq::kIq2sGrid[s_index(b, g)], j),
                negative(b[kSSigns + g], j), v[e], mag[e]);
  }
  return {};
}
// fields: d, signs[32] (8-bit sign bytes), scales[16] (4 bit)
void pack_iq2_s(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kSBytes);
  le::put16(b, f.fields[0]);
  for (int g = 0; g < kGroups; ++g) {
    const uint32_t idx = static_cast<uint32_t>(f.codes[g]) & 1023;
    b[kSQs + g] = static_cast<uint8_t>(idx & 0xFF);
    b[kSQh + g / 4] |= static_cast<uint8_t>((idx >> 8) << (2 * (g % 4)));
    b[kSSigns + g] = static_cast<uint8_t>(f.fields[1 + g] & 0xFF);
  }
  for (int h = 0; h < 16; ++h) b[kSScales + h / 2] |= static_cast<uint8_t>((f.fields[33 + h] & 0xF) << (4 * (h % 2)));
}
void unpack_iq2_s(const uint8_t* b, BlockFields& f) {
  f.codes.resize(kGroups);
  f.fields.assign(1 + 32 + 16, 0);
  f.fields[0] = le::u16(b);
  for (int g = 0; g < kGroups; ++g) {
    f.codes[g] = s_index(b, g);
    f.fields[1 + g] = b[kSSigns + g];
  }
  for (int h = 0; h < 16; ++h) f.fields[33 + h] = static_cast<uint32_t>(nibble_scale(b + kSScales, h));
}

constexpr FieldSpec kXxsFields[] = {{"d", FieldKind::f16, 1},
                                    {"signs", FieldKind::ubits, 32, false, 7},
                                    {"scales", FieldKind::ubits, 8, false, 4}};
constexpr FieldSpec kXsFields[] = {{"d", FieldKind::f16, 1},
                                   {"signs", FieldKind::ubits, 32, false, 7},
                                   {"scales", FieldKind::ubits, 16, false, 4}};
constexpr FieldSpec kSFields[] = {{"d", FieldKind::f16, 1},
                                  {"signs", FieldKind::ubits, 32, false, 8},
                                  {"scales", FieldKind::ubits, 16, false, 4}};
}  // namespace

QGATE_DEFINE_FORMAT(iq2_xxs, 256, -1, false, kXxsFields, "ggml src/ggml-common.h block_iq2_xxs, iq2xxs_grid, ksigns_iq2xs; src/ggml-quants.c dequantize_row_iq2_xxs", nullptr, nullptr, kGroups)
QGATE_DEFINE_FORMAT(iq2_xs, 512, -1, false, kXsFields, "ggml src/ggml-common.h block_iq2_xs, iq2xs_grid, ksigns_iq2xs; src/ggml-quants.c dequantize_row_iq2_xs", nullptr, nullptr, kGroups)
QGATE_DEFINE_FORMAT(iq2_s, 1024, -1, false, kSFields, "ggml src/ggml-common.h block_iq2_s, iq2s_grid; src/ggml-quants.c dequantize_row_iq2_s", nullptr, nullptr, kGroups)

}  // namespace qgate::formats
