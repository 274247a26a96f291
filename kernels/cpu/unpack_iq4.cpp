// IQ4 unpackers (iq4_nl, iq4_xs): q = kvalues_iq4nl[nibble], per-sub-block f32 scale.
// Written in the shape of ggml's CPU kernels (ggml-cpu quants.c, x86 vec_dot_iq4_xs_q8_K):
// a nibble loop over 16 bytes per 32 elements, and iq4_xs scales taken two sub-blocks at a
// time from one scales_l byte while scales_h is shifted down 4 bits per pair.
#include <cstring>

#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/unpack.hpp"
#include "kernels/mutant.hpp"
#include "oracles/formats/iq_tables.hpp"

namespace qgate::cpu {
namespace {
// 16 bytes of nibbles -> 32 table values: low nibbles first, then high nibbles.
void nl_nibbles(const uint8_t* qs, int8_t* q) {
  const int8_t* kv = iq::kValuesIq4nl;
  for (int j = 0; j < 16; ++j) {
    q[j] = kv[qs[j] & 0xF];
    q[j + 16] = kv[qs[j] >> 4];
  }
}
}  // namespace

// IQ4_NL: {f16 d; u8 qs[16]}.
void Unpack_iq4_nl::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = 0;
  nl_nibbles(b + 2, u.q);
}

// IQ4_XS: {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]}; 8 sub-blocks of 32.
void Unpack_iq4_xs::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  uint16_t h = rd16(b + 2);
  const uint8_t* sl = b + 4;
  const uint8_t* qs = b + 8;
  for (int ib = 0; ib < 8; ib += 2, h >>= 4) {
    int hi1 = (h << 4) & 0x30, hi2 = (h << 2) & 0x30;
    if (QGATE_MUTANT_ON(iq4_xs_high_scale_bits_ignored)) hi1 = hi2 = 0;
    const int ls1 = (sl[ib / 2] & 0xF) | hi1;
    const int ls2 = (sl[ib / 2] >> 4) | hi2;
    u.d[ib] = d * static_cast<float>(ls1 - 32);
    u.d[ib + 1] = d * static_cast<float>(ls2 - 32);
    u.m[ib] = u.m[ib + 1] = 0;
  }
  for (int ib = 0; ib < 8; ++ib) nl_nibbles(qs + 16 * ib, u.q + 32 * ib);
}

}  // namespace qgate::cpu
