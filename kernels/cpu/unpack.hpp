// Block unpackers: the format-specific half of every CPU kernel. Each turns one block
// into small signed integer codes plus per-sub-block f32 scale and offset, so that
//   x = d[j] * q[i] - m[j]   (j = i / sub)
// which the generic kernels (dequant, matmul) consume. Written from the block layouts in
// production style (byte loops), independent of the oracle's per-element decoders.
// fp8 blocks carry float element values instead (f[], with the block scale in d[0]).
#pragma once
#include <cstdint>

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

#define QGATE_UNPACKER(fmt, elems, sub, bytes, is_float)                 \
  struct Unpack_##fmt : BlockTraits<elems, sub, bytes, is_float> {       \
    static void run(const uint8_t* blk, Unpacked& u);                    \
  };
QGATE_UNPACKER(q4_0, 32, 32, 18, false)
QGATE_UNPACKER(q4_1, 32, 32, 20, false)
QGATE_UNPACKER(q5_0, 32, 32, 22, false)
QGATE_UNPACKER(q5_1, 32, 32, 24, false)
QGATE_UNPACKER(q8_0, 32, 32, 34, false)
QGATE_UNPACKER(q8_1, 32, 32, 36, false)
QGATE_UNPACKER(q8_K, 256, 256, 292, false)
QGATE_UNPACKER(q2_K, 256, 16, 84, false)
QGATE_UNPACKER(q3_K, 256, 16, 110, false)
QGATE_UNPACKER(q4_K, 256, 32, 144, false)
QGATE_UNPACKER(q5_K, 256, 32, 176, false)
QGATE_UNPACKER(q6_K, 256, 16, 210, false)
QGATE_UNPACKER(iq2_xxs, 256, 32, 66, false)   // q = grid * sign, d[j] = d * (2s+1) / 8
QGATE_UNPACKER(iq2_xs, 256, 16, 74, false)    // d[j] = d * (2s+1) / 8 per 16
QGATE_UNPACKER(iq2_s, 256, 16, 82, false)     // d[j] = d * (2s+1) / 8 per 16
QGATE_UNPACKER(iq3_xxs, 256, 32, 98, false)   // d[j] = d * (2s+1) / 4
QGATE_UNPACKER(iq3_s, 256, 32, 110, false)    // d[j] = d * (2s+1)
QGATE_UNPACKER(iq1_s, 256, 32, 50, false)     // q = 8*g +- 1 (the delta), d[j] = d * (2s+1) / 8
QGATE_UNPACKER(iq1_m, 256, 16, 56, false)     // q = 8*g +- 1 (the delta), d[j] = d * (2s+1) / 8 per 16
QGATE_UNPACKER(iq4_nl, 32, 32, 18, false)     // q = kvalues_iq4nl[code], d[0] = d
QGATE_UNPACKER(iq4_xs, 256, 32, 136, false)   // q = kvalues_iq4nl[code], d[j] = d * (ls - 32)
QGATE_UNPACKER(tq1_0, 256, 256, 54, false)    // q = trit - 1, d[0] = d
QGATE_UNPACKER(tq2_0, 256, 256, 66, false)    // q = code - 1, d[0] = d
QGATE_UNPACKER(mxfp4, 32, 32, 17, false)
QGATE_UNPACKER(nvfp4, 64, 16, 36, false)      // q = 2 * E2M1(code), d[j] = UE4M3(d[j]) / 2
QGATE_UNPACKER(q1_0, 128, 128, 18, false)     // q = bit ? 1 : -1, d[0] = d
QGATE_UNPACKER(q2_0, 64, 64, 18, false)       // q = code - 1, d[0] = d
QGATE_UNPACKER(fp8_e4m3, 32, 32, 36, true)
QGATE_UNPACKER(fp8_e5m2, 32, 32, 36, true)
#undef QGATE_UNPACKER

}  // namespace qgate::cpu
