// qgate's GPTQ / AutoRound int4 container (auto_gptq "v1" packing) and its builder.
//
// A QTensor is one byte vector plus a shape (n outputs, k inputs), so the four tensors a
// GPTQ checkpoint stores per linear layer travel as one little-endian container:
//
//   header, 32 bytes:
//     char     magic[8]       "QGGPTQ1" (7 chars + NUL)
//     uint32   k              inputs  (multiple of 8)
//     uint32   n              outputs (multiple of 8)
//     uint32   group_size     >= 1; group_size >= k means one group per column
//     uint32   flags          bit0 = checkpoint claims symmetric, bit1 = g_idx present
//     uint32   reserved[2]    0
//   qweight  int32  [k/8][n]   input 8r+j of column c is bits 4j..4j+3 of qweight[r][c]
//   qzeros   int32  [G][n/8]   nibble j of qzeros[g][c] is the STORED zero of column 8c+j;
//                              true zero = stored + 1 (v1 convention), G = ceil(k/group_size)
//   scales   uint16 [G][n]     fp16 bits
//   g_idx    int32  [k]        only with flag bit1; otherwise g = k / group_size
//
// Dequantization (oracle: gptq.cpp): w[n][k] = scale[g][n] * (q[k][n] - (zstored[g][n] + 1)).
// Sources and the facts checked against them are listed in gptq.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "oracles/formats/format.hpp"

namespace qgate::gptq {

inline constexpr char kMagic[8] = "QGGPTQ1";
inline constexpr size_t kHeaderBytes = 32;
inline constexpr uint32_t kFlagSym = 1u;    // checkpoint claims sym=True (zero 8, stored 7)
inline constexpr uint32_t kFlagGIdx = 2u;   // g_idx array present (act-order / desc_act)
inline constexpr int kSymZero = 8;          // true zero of a symmetric 4-bit checkpoint
inline constexpr uint32_t kSymQzeros = 0x77777777u;  // its packed qzeros word (stored 7s)

struct Params {
  int64_t n = 0, k = 0;   // outputs, inputs; both multiples of 8
  int group_size = 0;     // >= 1
  bool sym = false;       // sets flag bit0; build() does not enforce it (decode does)
  bool has_g_idx = false; // sets flag bit1 and appends g_idx
};

// Byte offsets of each array inside the container, and its total size.
struct Layout {
  int64_t groups = 0;  // G = ceil(k / group_size)
  size_t qweight = 0, qzeros = 0, scales = 0, g_idx = 0, total = 0;
};

// Both throw std::invalid_argument when the shape cannot be encoded (k or n not a
// multiple of 8, negative, above 2^32-1, group_size < 1).
Layout layout(const Params& p);
size_t container_bytes(const Params& p);

// Packs a container the auto_gptq v1 way.
//   codes      n*k, row-major [n][k] (QTensor order), each 0..15
//   zeros      G*n, [g][n], TRUE zeros, each 1..16; stored as zero-1
//   scale_bits G*n, [g][n], fp16 bit patterns (any, non-finite included, for tests)
//   g_idx      k entries when p.has_g_idx, else empty; written as given (not range-checked,
//              so tests can build invalid containers; decode_tensor rejects them)
// Why true zeros must be 1..16: v1 stores zero-1 in an unsigned nibble. auto_gptq's
// pack() does `zeros -= 1`, casts to uint32 and ORs the value, unmasked, into qzeros, so a
// true zero of 0 becomes -1: it does not fit the nibble, and its wrapped high bits would
// spill into the neighbouring columns' nibbles. The asymmetric quantizer's zero
// round(-xmin/scale) is 0 whenever a group has no negative weight, so this is a real case:
// GPTQModel notes that sym=False v1 files (from its v2->v1 conversion) can under/overflow.
// A true zero of 0 has no v1 encoding, so build() refuses it rather than write 15
// (which decodes as 16). True zero 16 (stored 15) is encodable and accepted.
// The sym flag is written as given and not checked against the zeros: a checkpoint that
// claims symmetric but is not is a case decode_tensor must reject, so tests build it.
// Throws std::invalid_argument on sizes or values it cannot encode.
std::vector<uint8_t> build(const Params& p, std::span<const int32_t> codes,
                           std::span<const int32_t> zeros, std::span<const uint16_t> scale_bits,
                           std::span<const int32_t> g_idx);

// What the W4A8 kernels of every backend take (their AcceptsFn): contiguous groups (no
// act-order g_idx) of a multiple of 32 elements; nullptr = accepted, else why not.
const char* w4a8_accepts(const QTensor& t);
// The same, and a checkpoint declared symmetric (the kernel folds in zero 8).
const char* w4a8_sym_accepts(const QTensor& t);

}  // namespace qgate::gptq
