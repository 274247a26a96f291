// OCP microscaling FP4 (MXFP4), GGUF type 39: {u8 e; u8 qs[16]}, 32 elements, 17 bytes.
// Layout: ggml src/ggml-common.h block_mxfp4; values: ggml src/ggml-quants.c
// dequantize_row_mxfp4.
//
// Element i (0..31): the 4-bit E2M1 code is the low nibble of qs[i] for i < 16 and the
// high nibble of qs[i-16] for i >= 16 (the q4_0 order). x_i = E2M1(code) * 2^(e-127).
// ggml writes the same number as kvalues_mxfp4[code] * 2^(e-128): its table holds the
// E2M1 values doubled, and GGML_E8M0_TO_FP32_HALF(e) is 2^(e-128).
//
// e = 0xFF is the E8M0 NaN. ggml's decoders do not special-case it (the half-scale bit
// trick turns it into a finite 2^127) and ggml_validate_row_data rejects it, so the oracle
// refuses such a block: there is no exact value to check a kernel against.
//
// Code 8 is E2M1's -0 in the OCP spec; the GGUF definition (kvalues_mxfp4[8] = 0, times
// the scale) gives +0, and qgate follows the GGUF definition of GGUF type 39, since kernels
// are gated bit for bit, sign of zero included. Values are exact in fp64 for every e, including e = 254 with
// |code| = 6, which exceeds binary32's range: a kernel's f32 output overflows there.
#include <cmath>

#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kElems = 32;
constexpr int kBytes = 17;
static_assert(kElems == block::mxfp4::elems && kBytes == block::mxfp4::bytes, "the layout matches the formats.inc row");

int nibble_code(const uint8_t* qs, int i) { return i < 16 ? (qs[i] & 0xF) : (qs[i - 16] >> 4); }

DecodeError decode_mxfp4(const uint8_t* b, double* v, double* mag) {
  const uint8_t e = b[0];
  if (e == 0xFF) return non_finite("mxfp4", "e", e);
  const double scale = scalar::from_e8m0(e);  // 2^(e-127), exact
  for (int i = 0; i < kElems; ++i) {
    v[i] = scalar::from_e2m1(static_cast<uint8_t>(nibble_code(b + 1, i))) * scale;
    if (v[i] == 0) v[i] = 0.0;  // +0 for code 8, as the GGUF table has it
    mag[i] = std::fabs(v[i]);
  }
  return {};
}

void pack_mxfp4(const BlockFields& f, uint8_t* b) {
  b[0] = static_cast<uint8_t>(f.fields[0] & 0xFF);
  for (int i = 0; i < 16; ++i)
    b[1 + i] = static_cast<uint8_t>((f.codes[i] & 0xF) | ((f.codes[i + 16] & 0xF) << 4));
}

void unpack_mxfp4(const uint8_t* b, BlockFields& f) {
  f.fields = {b[0]};
  f.codes.resize(kElems);
  for (int i = 0; i < kElems; ++i) f.codes[i] = nibble_code(b + 1, i);
}

constexpr FieldSpec kE[] = {{"e", FieldKind::e8m0, 1}};
constexpr std::string_view kSrc =
    "ggml src/ggml-common.h block_mxfp4, kvalues_mxfp4; src/ggml-quants.c dequantize_row_mxfp4; "
    "OCP MX v1.0 (E8M0 scale, E2M1 elements)";
}  // namespace

QGATE_DEFINE_FORMAT(mxfp4, 16, 0, false, kE, kSrc)

}  // namespace qgate::formats
