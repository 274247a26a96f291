// IQ3 block unpackers (iq3_xxs, iq3_s): grid magnitudes with their signs applied become the
// integer codes q (|q| <= 62), the per-32 scale folds into d[j]. Walks the block the way
// ggml's CPU/CUDA kernels do: one 32-element sub-block at a time, a little-endian word of
// scale and sign bits per sub-block (iq3_xxs), grid entries read as 4 packed bytes.
//
// iq3_xxs signs: the table-free parity rule of ggml-cuda's unpack_ksigns: the 7 stored bits
// plus an 8th bit equal to their parity (the number of negated weights is even), instead of
// a lookup in ksigns_iq2xs.
#include <bit>
#include <cstring>

#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/unpack.hpp"
#include "oracles/formats/iq_tables.hpp"

namespace qgate::cpu {
namespace {
// 8 elements from two grid entries (4 magnitudes each) and one 8-bit sign mask.
inline void signed_octet(uint32_t g_lo, uint32_t g_hi, unsigned signs, int8_t* q) {
  for (int j = 0; j < 4; ++j) {
    const int a = static_cast<int>((g_lo >> (8 * j)) & 0xFF), b = static_cast<int>((g_hi >> (8 * j)) & 0xFF);
    q[j] = static_cast<int8_t>((signs >> j) & 1 ? -a : a);
    q[j + 4] = static_cast<int8_t>((signs >> (j + 4)) & 1 ? -b : b);
  }
}
}  // namespace

// iq3_xxs: d, qs[64] grid indices, then 8 words: 4 x 7 sign bits | 4-bit scale << 28.
// x = d * (0.5 + s) * 0.5 * q = (d * (2s+1) / 4) * q.
void Unpack_iq3_xxs::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  const uint8_t* qs = b + 2;
  const uint8_t* ss = b + 2 + 64;
  int8_t* q = u.q;
  for (int ib = 0; ib < 8; ++ib, qs += 8, ss += 4) {
    const uint32_t aux = rd32(ss);
    u.d[ib] = d * static_cast<float>(2 * (aux >> 28) + 1) * 0.25f;
    u.m[ib] = 0;
    for (int l = 0; l < 4; ++l, q += 8) {
      const unsigned s7 = (aux >> (7 * l)) & 127;
      const unsigned s8 = s7 | ((std::popcount(s7) & 1u) << 7);
      signed_octet(iq::kIq3xxsGrid[qs[2 * l]], iq::kIq3xxsGrid[qs[2 * l + 1]], s8, q);
    }
  }
}

// iq3_s: d, qs[64] low index bytes, qh[8] (bit k of qh[ib] = bit 8 of index 8ib+k),
// signs[32] explicit sign bytes, scales[4] (two 4-bit scales per byte, low nibble first).
// x = d * (1 + 2s) * q.
void Unpack_iq3_s::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  const uint8_t* qs = b + 2;
  const uint8_t* qh = b + 66;
  const uint8_t* signs = b + 74;
  const uint8_t* scales = b + 106;
  int8_t* q = u.q;
  for (int ib = 0; ib < 8; ++ib, qs += 8, signs += 4) {
    const unsigned s = (scales[ib / 2] >> (4 * (ib % 2))) & 0xF;
    u.d[ib] = d * static_cast<float>(1 + 2 * s);
    u.m[ib] = 0;
    const unsigned h = qh[ib];
    for (int l = 0; l < 4; ++l, q += 8) {
      const unsigned i0 = qs[2 * l] | ((h << (8 - 2 * l)) & 256);
      const unsigned i1 = qs[2 * l + 1] | ((h << (7 - 2 * l)) & 256);
      signed_octet(iq::kIq3sGrid[i0], iq::kIq3sGrid[i1], signs[l], q);
    }
  }
}

}  // namespace qgate::cpu
