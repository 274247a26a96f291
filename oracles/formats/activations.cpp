// Activation formats, decodable like any other: q8_1 (GPU mmvq and CPU q4_1/q5_1 pairing)
// and q8_K (CPU K-quant dot products). Layouts: ggml src/ggml-common.h block_q8_1,
// block_q8_K. How activations are
// quantized INTO these formats is declared math of a kernel: oracles/ops/quantize_act.
#include <cmath>
#include <cstring>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

// ---- q8_1: {f16 d; f16 s; i8 qs[32]}, x = d*qs[i]; s = d*sum(qs) as stored by the encoder.
DecodeError decode_q8_1(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("q8_1", "d", le::u16(b));
  // s (the stored sum) does not enter the values; it may legitimately overflow fp16.
  for (int i = 0; i < 32; ++i) {
    v[i] = d * static_cast<int8_t>(b[4 + i]);
    mag[i] = std::fabs(v[i]);
  }
  return {};
}
void pack_q8_1(const BlockFields& f, uint8_t* b) {
  le::put16(b, f.fields[0]);
  int sum = 0;
  for (int i = 0; i < 32; ++i) {
    b[4 + i] = static_cast<uint8_t>(f.codes[i] - 128);
    sum += f.codes[i] - 128;
  }
  // The derived field: ggml's reference quantizer stores s = fp16(d * sum(qs)).
  le::put16(b + 2, scalar::to_f16(static_cast<double>(static_cast<float>(
                       static_cast<float>(sum) * static_cast<float>(scalar::from_f16(f.fields[0]))))));
}
void unpack_q8_1(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b), le::u16(b + 2)};
  f.codes.resize(32);
  for (int i = 0; i < 32; ++i) f.codes[i] = static_cast<int8_t>(b[4 + i]) + 128;
}

// ---- q8_K: {f32 d; i8 qs[256]; i16 bsums[16]}, x = d*qs[i]; bsums[j] = sum of qs[16j..16j+15].
DecodeError decode_q8_K(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f32(le::u32(b));
  if (!std::isfinite(d)) return non_finite("q8_K", "d", le::u32(b));
  for (int i = 0; i < 256; ++i) {
    v[i] = d * static_cast<int8_t>(b[4 + i]);
    mag[i] = std::fabs(v[i]);
  }
  return {};
}
void pack_q8_K(const BlockFields& f, uint8_t* b) {
  le::put32(b, f.fields[0]);
  for (int j = 0; j < 16; ++j) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) {
      const int q = f.codes[16 * j + i] - 128;
      b[4 + 16 * j + i] = static_cast<uint8_t>(q);
      sum += q;
    }
    le::put16(b + 260 + 2 * j, static_cast<uint16_t>(static_cast<int16_t>(sum)));
  }
}
void unpack_q8_K(const uint8_t* b, BlockFields& f) {
  f.fields.assign(17, 0);
  f.fields[0] = le::u32(b);
  for (int j = 0; j < 16; ++j) f.fields[1 + j] = le::u16(b + 260 + 2 * j);
  f.codes.resize(256);
  for (int i = 0; i < 256; ++i) f.codes[i] = static_cast<int8_t>(b[4 + i]) + 128;
}

constexpr FieldSpec kQ8_1[] = {{"d", FieldKind::f16, 1}, {"s", FieldKind::f16, 1, true}};
constexpr FieldSpec kQ8_K[] = {{"d", FieldKind::f32, 1}, {"bsums", FieldKind::s16, 16, true}};
}  // namespace

QGATE_DEFINE_FORMAT(q8_1, 256, 128, true, kQ8_1, "ggml src/ggml-common.h block_q8_1; src/ggml-quants.c quantize_row_q8_1_ref")
QGATE_DEFINE_FORMAT(q8_K, 256, 128, true, kQ8_K, "ggml src/ggml-common.h block_q8_K; src/ggml-quants.c quantize_row_q8_K_ref")

}  // namespace qgate::formats
