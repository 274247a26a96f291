// NVFP4 as ggml stores it, GGUF type 40: {u8 d[4]; u8 qs[32]}, 64 elements, 36 bytes.
// Layout: ggml src/ggml-common.h block_nvfp4 (QK_NVFP4 = 64, QK_NVFP4_SUB = 16); values:
// ggml src/ggml-quants.c dequantize_row_nvfp4 with ggml_ue4m3_to_fp32 (ggml-impl.h).
//
// Sub-block s (elements 16s .. 16s+15) has scale d[s] and code bytes qs[8s .. 8s+7]: the low
// nibble of qs[8s+j] is element 16s+j, the high nibble element 16s+8+j. x = E2M1(code) *
// UE4M3(d[s]). ggml writes the same number as kvalues_mxfp4[code] * (UE4M3 / 2).
//
// The scale byte is decoded as ggml decodes it, so that every one of the 256 patterns is
// checked bit for bit against the shipped decoder: bit 7 is ignored, 0x7F (E4M3's NaN) is 0
// and 0xFF is 480 (scalar::from_ue4m3). No scale is non-finite. Code 8 (E2M1's -0) is +0,
// as in mxfp4; the other negative codes times a zero scale are -0. NVFP4's per-tensor f32 scale is not part of the block: ggml applies it as a
// separate multiply, outside what a block kernel computes.
#include <cmath>

#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kElems = 64;
constexpr int kBytes = 36;
static_assert(kElems == block::nvfp4::elems && kBytes == block::nvfp4::bytes, "the layout matches the formats.inc row");

int nvfp4_code(const uint8_t* qs, int i) {
  const int s = i / 16, j = i % 16;
  const uint8_t byte = qs[8 * s + (j & 7)];
  return j < 8 ? (byte & 0xF) : (byte >> 4);
}

DecodeError decode_nvfp4(const uint8_t* b, double* v, double* mag) {
  for (int i = 0; i < kElems; ++i) {
    const int code = nvfp4_code(b + 4, i);
    // Code 8 is +0 whatever the scale; a negative code times a zero scale is -0, as ggml's
    // kvalues_mxfp4[code] * scale gives it.
    v[i] = code == 8 ? 0.0 : scalar::from_e2m1(static_cast<uint8_t>(code)) * scalar::from_ue4m3(b[i / 16]);
    mag[i] = std::fabs(v[i]);
  }
  return {};
}

void pack_nvfp4(const BlockFields& f, uint8_t* b) {
  for (int s = 0; s < 4; ++s) b[s] = static_cast<uint8_t>(f.fields[s] & 0xFF);
  for (int s = 0; s < 4; ++s)
    for (int j = 0; j < 8; ++j)
      b[4 + 8 * s + j] = static_cast<uint8_t>((f.codes[16 * s + j] & 0xF) | ((f.codes[16 * s + 8 + j] & 0xF) << 4));
}

void unpack_nvfp4(const uint8_t* b, BlockFields& f) {
  f.fields = {b[0], b[1], b[2], b[3]};
  f.codes.resize(kElems);
  for (int i = 0; i < kElems; ++i) f.codes[i] = nvfp4_code(b + 4, i);
}

constexpr FieldSpec kD[] = {{"d", FieldKind::ue4m3, 4}};
constexpr std::string_view kSrc =
    "ggml src/ggml-common.h block_nvfp4, kvalues_mxfp4; src/ggml-quants.c dequantize_row_nvfp4; "
    "src/ggml-impl.h ggml_ue4m3_to_fp32";
}  // namespace

QGATE_DEFINE_FORMAT(nvfp4, 16, 0, false, kD, kSrc)

}  // namespace qgate::formats
