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
QGATE_UNPACKER(mxfp4, 32, 32, 17, false)
QGATE_UNPACKER(fp8_e4m3, 32, 32, 36, true)
QGATE_UNPACKER(fp8_e5m2, 32, 32, 36, true)
#undef QGATE_UNPACKER

}  // namespace qgate::cpu
