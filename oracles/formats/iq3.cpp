// IQ3 codebook quants, 256-element super-blocks: iq3_xxs and iq3_s.
// Layouts: ggml src/ggml-common.h (block_iq3_xxs, block_iq3_s); values: ggml
// src/ggml-quants.c dequantize_row_iq3_xxs / dequantize_row_iq3_s; grids and the
// ksigns_iq2xs sign table in iq_tables.hpp.
//
// Both formats split the block into 8 sub-blocks of 32 elements (ib = e/32) and 64 groups of
// 4 elements: group c = e/4 takes its 4 unsigned magnitudes from one grid entry, element
// e%4 of the group in byte e%4 of the entry. A code is that grid index (64 per block).
// Signs come per 8 elements (e/8); bit e%8 of the 8-bit sign mask negates element e.
//
//   iq3_xxs (98 B): {f16 d; u8 qs[64]; u32 scales_and_signs[8]}
//     code c        = qs[c]                                    (256-entry iq3xxs_grid)
//     word ib       = scales_and_signs[ib] (little endian)
//     sign mask     = ksigns_iq2xs[(word >> 7*(e/8 % 4)) & 127]  (the 8th bit is the parity)
//     scale s       = word >> 28;  x = d * (0.5 + s) * 0.5 * grid * sign
//   iq3_s (110 B): {f16 d; u8 qs[64]; u8 qh[8]; u8 signs[32]; u8 scales[4]}
//     code c        = qs[c] | ((qh[c/8] >> c%8) & 1) << 8      (512-entry iq3s_grid)
//     sign mask     = signs[e/8]                               (explicit, no parity)
//     scale s       = nibble ib%2 of scales[ib/2];  x = d * (1 + 2s) * grid * sign
//
// Every byte pattern is a valid block (all indices address the grid, all sign and scale
// bits are meaningful); only a non-finite d is rejected.
//
// Exactness: d is binary16 (11 significant bits, quantum >= 2^-24); iq3_xxs multiplies it by
// (2s+1)/4 (5 bits) and a grid byte <= 62 (6 bits), iq3_s by 2s+1 and a grid byte <= 15:
// every value has at most 22 significant bits, so the double arithmetic below is exact (and
// so is ggml's float arithmetic, which the golden tests reproduce bit for bit).
#include <cmath>
#include <cstring>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/iq_tables.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kQK = 256;
constexpr int kGroups = 64;  // codes per block

// Byte j (0..3) of a 4-magnitude grid entry.
int grid_byte(uint32_t entry, int j) { return static_cast<int>((entry >> (8 * j)) & 0xFF); }

void put_value(double v, double& value, double& mag) {
  value = v;
  mag = std::fabs(v);
}

// ---- iq3_xxs
constexpr int kXxsBytes = 98, kXxsD = 0, kXxsQs = 2, kXxsSS = 66;

uint32_t xxs_word(const uint8_t* b, int ib) { return le::u32(b + kXxsSS + 4 * ib); }
int xxs_sign7(const uint8_t* b, int g8) { return static_cast<int>((xxs_word(b, g8 / 4) >> (7 * (g8 % 4))) & 127); }
int xxs_scale(const uint8_t* b, int ib) { return static_cast<int>(xxs_word(b, ib) >> 28); }

DecodeError decode_iq3_xxs(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b + kXxsD));
  if (!std::isfinite(d)) return non_finite("iq3_xxs", "d", le::u16(b + kXxsD));
  for (int e = 0; e < kQK; ++e) {
    const double db = d * (0.5 + xxs_scale(b, e / 32)) * 0.5;
    const int mag_q = grid_byte(iq::kIq3xxsGrid[b[kXxsQs + e / 4]], e % 4);
    const bool neg = (iq::kSignsIq2xs[xxs_sign7(b, e / 8)] >> (e % 8)) & 1;
    put_value(db * (neg ? -mag_q : mag_q), v[e], mag[e]);
  }
  return {};
}
// fields: d, signs[32] (7-bit ksigns indices, one per 8 elements), scales[8] (4 bits)
constexpr int kSignsAt = 1, kScalesAt = 33, kFieldCount = 41;
void pack_iq3_xxs(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kXxsBytes);
  le::put16(b + kXxsD, f.fields[0]);
  for (int c = 0; c < kGroups; ++c) b[kXxsQs + c] = static_cast<uint8_t>(f.codes[c] & 0xFF);
  for (int ib = 0; ib < 8; ++ib) {
    uint32_t w = (f.fields[kScalesAt + ib] & 0xF) << 28;
    for (int l = 0; l < 4; ++l) w |= (f.fields[kSignsAt + 4 * ib + l] & 127) << (7 * l);
    le::put32(b + kXxsSS + 4 * ib, w);
  }
}
void unpack_iq3_xxs(const uint8_t* b, BlockFields& f) {
  f.fields.assign(kFieldCount, 0);
  f.fields[0] = le::u16(b + kXxsD);
  for (int g8 = 0; g8 < 32; ++g8) f.fields[kSignsAt + g8] = static_cast<uint32_t>(xxs_sign7(b, g8));
  for (int ib = 0; ib < 8; ++ib) f.fields[kScalesAt + ib] = static_cast<uint32_t>(xxs_scale(b, ib));
  f.codes.resize(kGroups);
  for (int c = 0; c < kGroups; ++c) f.codes[c] = b[kXxsQs + c];
}

// ---- iq3_s
constexpr int kSBytes = 110, kSD = 0, kSQs = 2, kSQh = 66, kSSigns = 74, kSScales = 106;
static_assert(kQK == block::iq3_xxs::elems && kXxsBytes == block::iq3_xxs::bytes, "the layout matches the formats.inc row");
static_assert(kQK == block::iq3_s::elems && kSBytes == block::iq3_s::bytes, "the layout matches the formats.inc row");

int s_code(const uint8_t* b, int c) { return b[kSQs + c] | (((b[kSQh + c / 8] >> (c % 8)) & 1) << 8); }
int s_scale(const uint8_t* b, int ib) { return (b[kSScales + ib / 2] >> (4 * (ib % 2))) & 0xF; }

DecodeError decode_iq3_s(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b + kSD));
  if (!std::isfinite(d)) return non_finite("iq3_s", "d", le::u16(b + kSD));
  for (int e = 0; e < kQK; ++e) {
    const double db = d * (1 + 2 * s_scale(b, e / 32));
    const int mag_q = grid_byte(iq::kIq3sGrid[s_code(b, e / 4)], e % 4);
    const bool neg = (b[kSSigns + e / 8] >> (e % 8)) & 1;
    put_value(db * (neg ? -mag_q : mag_q), v[e], mag[e]);
  }
  return {};
}
// fields: d, signs[32] (explicit sign bytes, one per 8 elements), scales[8] (4 bits)
void pack_iq3_s(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kSBytes);
  le::put16(b + kSD, f.fields[0]);
  for (int c = 0; c < kGroups; ++c) {
    b[kSQs + c] = static_cast<uint8_t>(f.codes[c] & 0xFF);
    b[kSQh + c / 8] |= static_cast<uint8_t>(((f.codes[c] >> 8) & 1) << (c % 8));
  }
  for (int g8 = 0; g8 < 32; ++g8) b[kSSigns + g8] = static_cast<uint8_t>(f.fields[kSignsAt + g8] & 0xFF);
  for (int ib = 0; ib < 8; ++ib)
    b[kSScales + ib / 2] |= static_cast<uint8_t>((f.fields[kScalesAt + ib] & 0xF) << (4 * (ib % 2)));
}
void unpack_iq3_s(const uint8_t* b, BlockFields& f) {
  f.fields.assign(kFieldCount, 0);
  f.fields[0] = le::u16(b + kSD);
  for (int g8 = 0; g8 < 32; ++g8) f.fields[kSignsAt + g8] = b[kSSigns + g8];
  for (int ib = 0; ib < 8; ++ib) f.fields[kScalesAt + ib] = static_cast<uint32_t>(s_scale(b, ib));
  f.codes.resize(kGroups);
  for (int c = 0; c < kGroups; ++c) f.codes[c] = s_code(b, c);
}

// Every bit of both blocks is owned by exactly one code or field bit (no unused bits):
//   iq3_xxs: 16 (d) + 64*8 (codes) + 32*7 (signs) + 8*4 (scales) = 784 = 98*8
//   iq3_s:   16 (d) + 64*9 (codes) + 32*8 (signs) + 8*4 (scales) = 880 = 110*8
constexpr FieldSpec kXxsFields[] = {{"d", FieldKind::f16, 1},
                                    {"signs", FieldKind::ubits, 32, false, 7},
                                    {"scales", FieldKind::ubits, 8, false, 4}};
constexpr FieldSpec kSFields[] = {{"d", FieldKind::f16, 1},
                                  {"signs", FieldKind::ubits, 32, false, 8},
                                  {"scales", FieldKind::ubits, 8, false, 4}};
}  // namespace

QGATE_DEFINE_FORMAT(iq3_xxs, 256, -1, false, kXxsFields, "ggml src/ggml-common.h block_iq3_xxs, iq3xxs_grid, ksigns_iq2xs; src/ggml-quants.c dequantize_row_iq3_xxs", nullptr, nullptr, kGroups)
QGATE_DEFINE_FORMAT(iq3_s, 512, -1, false, kSFields, "ggml src/ggml-common.h block_iq3_s, iq3s_grid; src/ggml-quants.c dequantize_row_iq3_s", nullptr, nullptr, kGroups)

}  // namespace qgate::formats
