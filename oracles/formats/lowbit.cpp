// ggml's one- and two-bit formats with one fp16 scale per block.
// Layouts: ggml src/ggml-common.h block_q1_0 (QK1_0 = 128), block_q2_0 (QK2_0 = 64); values:
// ggml src/ggml-quants.c dequantize_row_q1_0, dequantize_row_q2_0.
//
//   q1_0  {f16 d; u8 qs[16]}, 128 elements, 18 bytes: bit i%8 of qs[i/8] set -> +d, clear -> -d
//   q2_0  {f16 d; u8 qs[16]}, 64 elements, 18 bytes: code q = bits 2(i%4).. of qs[i/4],
//         x = d * (q - 1): -d, 0, d, 2d
//
// Both are bounded in split form, as every format with an offset: q2_0's x = d q - d gives
// |d| q + |d| (as tq2_0's, the same code - 1), q1_0's x = 2 d b - d gives 2 |d| b + |d|. An
// engine that applies the offset as its own term, d (sum q x - sum x), rounds both parts.
#include <cmath>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

int q1_bit(const uint8_t* qs, int i) { return (qs[i / 8] >> (i % 8)) & 1; }
int q2_code(const uint8_t* qs, int i) { return (qs[i / 4] >> (2 * (i % 4))) & 3; }

DecodeError decode_q1_0(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("q1_0", "d", le::u16(b));
  for (int i = 0; i < 128; ++i) {
    const int bit = q1_bit(b + 2, i);
    v[i] = bit ? d : -d;
    mag[i] = std::fabs(d) * (2 * bit + 1);
  }
  return {};
}
void pack_q1_0(const BlockFields& f, uint8_t* b) {
  le::put16(b, f.fields[0]);
  for (int j = 0; j < 16; ++j) b[2 + j] = 0;
  for (int i = 0; i < 128; ++i) b[2 + i / 8] = static_cast<uint8_t>(b[2 + i / 8] | ((f.codes[i] & 1) << (i % 8)));
}
void unpack_q1_0(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b)};
  f.codes.resize(128);
  for (int i = 0; i < 128; ++i) f.codes[i] = q1_bit(b + 2, i);
}

DecodeError decode_q2_0(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("q2_0", "d", le::u16(b));
  for (int i = 0; i < 64; ++i) {
    const int q = q2_code(b + 2, i);
    v[i] = d * (q - 1);
    mag[i] = std::fabs(d) * (q + 1);
  }
  return {};
}
void pack_q2_0(const BlockFields& f, uint8_t* b) {
  le::put16(b, f.fields[0]);
  for (int j = 0; j < 16; ++j) b[2 + j] = 0;
  for (int i = 0; i < 64; ++i) b[2 + i / 4] = static_cast<uint8_t>(b[2 + i / 4] | ((f.codes[i] & 3) << (2 * (i % 4))));
}
void unpack_q2_0(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b)};
  f.codes.resize(64);
  for (int i = 0; i < 64; ++i) f.codes[i] = q2_code(b + 2, i);
}

constexpr FieldSpec kD[] = {{"d", FieldKind::f16, 1}};
constexpr std::string_view kSrc1 = "ggml src/ggml-common.h block_q1_0, src/ggml-quants.c dequantize_row_q1_0";
constexpr std::string_view kSrc2 = "ggml src/ggml-common.h block_q2_0, src/ggml-quants.c dequantize_row_q2_0";
}  // namespace

QGATE_DEFINE_FORMAT(q1_0, 2, -1, false, kD, kSrc1)
QGATE_DEFINE_FORMAT(q2_0, 4, 1, false, kD, kSrc2)

}  // namespace qgate::formats
