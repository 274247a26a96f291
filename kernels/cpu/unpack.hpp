// Block unpackers: the format-specific half of every CPU kernel. Each turns one block
// into small signed integer codes plus per-sub-block f32 scale and offset, so that
//   x = d[j] * q[i] - m[j]   (j = i / sub)
// which the generic kernels (dequant, matmul) consume. Written from the block layouts in
// production style (byte loops), independent of the oracle's per-element decoders.
// fp8 blocks carry float element values instead (f[], with the block scale in d[0]).
#pragma once
#include <cstdint>

#include "oracles/formats/geometry.hpp"
#include "oracles/ops/precision.hpp"

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

// One unpacker per kernels/cpu/kernels.inc row, its geometry (elements, sub-block, bytes)
// from the format's formats.inc row. Float-valued blocks (fp8) are the ones the list pairs
// with per-token fp8 activations. Each format's run() is in unpack_<family>.cpp. What the
// less obvious ones yield:
//   iq2_xxs  q = grid * sign, d[j] = d * (2s+1) / 8      iq2_xs, iq2_s  the same per 16
//   iq3_xxs  d[j] = d * (2s+1) / 4                       iq3_s   d[j] = d * (2s+1)
//   iq1_s    q = 8*g +- 1 (the delta), d[j] = d * (2s+1) / 8; iq1_m the same per 16
//   iq4_nl   q = kvalues_iq4nl[code], d[0] = d           iq4_xs  d[j] = d * (ls - 32)
//   tq1_0    q = trit - 1, d[0] = d                      tq2_0, q2_0  q = code - 1, d[0] = d
//   nvfp4    q = 2 * E2M1(code), d[j] = UE4M3(d[j]) / 2  q1_0    q = bit ? 1 : -1, d[0] = d
#define QGATE_CPU_BLOCK_FORMAT(fmt, act)                                                       \
  struct Unpack_##fmt : BlockTraits<block::fmt::elems, block::fmt::sub, block::fmt::bytes,    \
                                    ActQuant::act == ActQuant::fp8_e4m3_token> {              \
    static void run(const uint8_t* blk, Unpacked& u);                                         \
  };
#include "kernels/cpu/kernels.inc"
#undef QGATE_CPU_BLOCK_FORMAT

}  // namespace qgate::cpu
