// Block unpackers: the format-specific half of every CPU kernel. Each turns one block
// into small signed integer codes plus per-sub-block f32 scale and offset, so that
//   x = d[j] * q[i] - m[j]   (j = i / sub)
// which the generic kernels (dequant, matmul) consume. Written from the block layouts in
// production style (byte loops), independent of the oracle's per-element decoders.
// fp8 blocks carry float element values instead (f[], with the block scale in d[0]).
#pragma once
#include <cstdint>

#include "oracles/formats/geometry.hpp"

namespace qgate::cpu {

struct Unpacked {
  int8_t q[256];
  float d[16];
  float m[16];
  float f[32];
};

template <int Elems, int Sub, int Bytes, bool Float = false>
struct BlockTraits {
  static constexpr int elems = Elems, sub = Sub, nsub = Elems / Sub, bytes = Bytes;
  static constexpr bool is_float = Float;
};

// The geometry (elements, sub-block, bytes) is the format's formats.inc row.
#define QGATE_UNPACKER(fmt, is_float)                                                     \
  struct Unpack_##fmt                                                                     \
      : BlockTraits<block::fmt::elems, block::fmt::sub, block::fmt::bytes, is_float> {    \
    static void run(const uint8_t* blk, Unpacked& u);                                     \
  };
QGATE_UNPACKER(q4_0, false)
QGATE_UNPACKER(q4_1, false)
QGATE_UNPACKER(q5_0, false)
QGATE_UNPACKER(q5_1, false)
QGATE_UNPACKER(q8_0, false)
QGATE_UNPACKER(q8_1, false)
QGATE_UNPACKER(q8_K, false)
QGATE_UNPACKER(q2_K, false)
QGATE_UNPACKER(q3_K, false)
QGATE_UNPACKER(q4_K, false)
QGATE_UNPACKER(q5_K, false)
QGATE_UNPACKER(q6_K, false)
QGATE_UNPACKER(iq2_xxs, false)   // q = grid * sign, d[j] = d * (2s+1) / 8
QGATE_UNPACKER(iq2_xs, false)    // d[j] = d * (2s+1) / 8 per 16
QGATE_UNPACKER(iq2_s, false)     // d[j] = d * (2s+1) / 8 per 16
QGATE_UNPACKER(iq3_xxs, false)   // d[j] = d * (2s+1) / 4
QGATE_UNPACKER(iq3_s, false)    // d[j] = d * (2s+1)
QGATE_UNPACKER(iq1_s, false)     // q = 8*g +- 1 (the delta), d[j] = d * (2s+1) / 8
QGATE_UNPACKER(iq1_m, false)     // q = 8*g +- 1 (the delta), d[j] = d * (2s+1) / 8 per 16
QGATE_UNPACKER(iq4_nl, false)     // q = kvalues_iq4nl[code], d[0] = d
QGATE_UNPACKER(iq4_xs, false)   // q = kvalues_iq4nl[code], d[j] = d * (ls - 32)
QGATE_UNPACKER(tq1_0, false)    // q = trit - 1, d[0] = d
QGATE_UNPACKER(tq2_0, false)    // q = code - 1, d[0] = d
QGATE_UNPACKER(mxfp4, false)
QGATE_UNPACKER(nvfp4, false)      // q = 2 * E2M1(code), d[j] = UE4M3(d[j]) / 2
QGATE_UNPACKER(q1_0, false)     // q = bit ? 1 : -1, d[0] = d
QGATE_UNPACKER(q2_0, false)       // q = code - 1, d[0] = d
QGATE_UNPACKER(fp8_e4m3, true)
QGATE_UNPACKER(fp8_e5m2, true)
#undef QGATE_UNPACKER

}  // namespace qgate::cpu
