#include "kernels/cpu/unpack.hpp"

#include <cmath>
#include <cstring>

#include "kernels/cpu/convert.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {
namespace {
// Legacy 32-blocks: 16 bytes of nibbles, low nibbles are elements 0..15.
void nibbles(const uint8_t* qs, int8_t* q, int offset) {
  if (QGATE_MUTANT_ON(crossed_nibble_lanes)) {
    for (int j = 0; j < 16; ++j) {
      q[j] = static_cast<int8_t>((qs[j] >> 4) - offset);
      q[j + 16] = static_cast<int8_t>((qs[j] & 0xF) - offset);
    }
    return;
  }
  for (int j = 0; j < 16; ++j) {
    q[j] = static_cast<int8_t>((qs[j] & 0xF) - offset);
    q[j + 16] = static_cast<int8_t>((qs[j] >> 4) - offset);
  }
}
void fifth_bit(const uint8_t* qh, int8_t* q) {
  const uint32_t h = rd32(qh);
  for (int j = 0; j < 32; ++j) q[j] = static_cast<int8_t>(q[j] + (((h >> j) & 1u) << 4));
}
// Q4_K / Q5_K: 8 six-bit scales and 8 six-bit mins in 12 bytes.
void scale_min_k4(const uint8_t* s, int j, int& sc, int& mn) {
  if (QGATE_MUTANT_ON(kquant_scale_lane) && j >= 4) j ^= 1;
  if (j < 4) {
    sc = s[j] & 63;
    mn = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
    mn = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}
// Q4_K / Q5_K: the sub-block scales d * sc and mins dmin * mn from the 12 bytes at b + 4.
void k4_scales(const uint8_t* b, float d, float dmin, Unpacked& u) {
  for (int j = 0; j < 8; ++j) {
    int sc, mn;
    scale_min_k4(b + 4, j, sc, mn);
    u.d[j] = d * static_cast<float>(sc);
    u.m[j] = dmin * static_cast<float>(mn);
  }
}
}  // namespace

void Unpack_q4_0::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = 0;
  nibbles(b + 2, u.q, 8);
}
void Unpack_q4_1::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = -h2f(rd16(b + 2));
  nibbles(b + 4, u.q, 0);
}
void Unpack_q5_0::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = 0;
  nibbles(b + 6, u.q, 0);
  fifth_bit(b + 2, u.q);
  for (int j = 0; j < 32; ++j) u.q[j] = static_cast<int8_t>(u.q[j] - 16);
}
void Unpack_q5_1::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = -h2f(rd16(b + 2));
  nibbles(b + 8, u.q, 0);
  fifth_bit(b + 4, u.q);
}
void Unpack_q8_0::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = 0;
  std::memcpy(u.q, b + 2, 32);
}
void Unpack_q8_1::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = 0;
  std::memcpy(u.q, b + 4, 32);
}
void Unpack_q8_K::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = bits2f(rd32(b));
  u.m[0] = 0;
  std::memcpy(u.q, b + 4, 256);
}

// Q2_K: scales[16] (lo nibble scale, hi nibble min), qs[64], d, dmin.
void Unpack_q2_K::run(const uint8_t* b, Unpacked& u) {
  const uint8_t* sc = b;
  const uint8_t* qs = b + 16;
  const float d = h2f(rd16(b + 80)), dmin = h2f(rd16(b + 82));
  for (int j = 0; j < 16; ++j) {
    u.d[j] = d * static_cast<float>(sc[j] & 0xF);
    u.m[j] = dmin * static_cast<float>(sc[j] >> 4);
  }
  int8_t* q = u.q;
  for (int half = 0; half < 2; ++half, qs += 32)
    for (int shift = 0; shift < 8; shift += 2)
      for (int l = 0; l < 32; ++l) *q++ = static_cast<int8_t>((qs[l] >> shift) & 3);
}

// Q3_K: hmask[32], qs[64], scales[12] (16 x 6 bit, -32), d.
void Unpack_q3_K::run(const uint8_t* b, Unpacked& u) {
  const uint8_t* hm = b;
  const uint8_t* qs = b + 32;
  const uint8_t* s = b + 96;
  const float d = h2f(rd16(b + 108));
  for (int j = 0; j < 16; ++j) {
    const int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    const int hi = (s[8 + (j & 3)] >> (2 * (j >> 2))) & 3;
    u.d[j] = d * static_cast<float>((lo | (hi << 4)) - 32);
    u.m[j] = 0;
  }
  int8_t* q = u.q;
  uint8_t bit = 1;
  for (int half = 0; half < 2; ++half, qs += 32)
    for (int shift = 0; shift < 8; shift += 2, bit = static_cast<uint8_t>(bit << 1))
      for (int l = 0; l < 32; ++l)
        *q++ = static_cast<int8_t>(((qs[l] >> shift) & 3) - ((hm[l] & bit) ? 0 : 4));
}

// Q4_K: d, dmin, scales[12], qs[128]; 64-element chunks: low nibbles then high nibbles.
void Unpack_q4_K::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b));
  float dmin = h2f(rd16(b + 2));
  // Mutant: dmin through a hand-written fp16 decode whose subnormal path forgets the sign.
  if (QGATE_MUTANT_ON(f16_subnormal_sign_dropped) && dmin != 0 && std::fabs(dmin) < 0x1p-14f) dmin = std::fabs(dmin);
  k4_scales(b, d, dmin, u);
  const uint8_t* qs = b + 16;
  for (int c = 0; c < 4; ++c, qs += 32)
    for (int l = 0; l < 32; ++l) {
      u.q[64 * c + l] = static_cast<int8_t>(qs[l] & 0xF);
      u.q[64 * c + 32 + l] = static_cast<int8_t>(qs[l] >> 4);
    }
}

// Q5_K: as Q4_K plus qh[32]; element 32j + l takes bit j of qh[l].
void Unpack_q5_K::run(const uint8_t* b, Unpacked& u) {
  const float d = h2f(rd16(b)), dmin = h2f(rd16(b + 2));
  k4_scales(b, d, dmin, u);
  const uint8_t* qh = b + 16;
  const uint8_t* qs = b + 48;
  for (int c = 0; c < 4; ++c, qs += 32)
    for (int l = 0; l < 32; ++l) {
      u.q[64 * c + l] = static_cast<int8_t>((qs[l] & 0xF) | (((qh[l] >> (2 * c)) & 1) << 4));
      u.q[64 * c + 32 + l] = static_cast<int8_t>((qs[l] >> 4) | (((qh[l] >> (2 * c + 1)) & 1) << 4));
    }
}

// Q6_K: ql[128], qh[64], scales[16] int8, d. Two 128-halves of four 32-rows each.
void Unpack_q6_K::run(const uint8_t* b, Unpacked& u) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = h2f(rd16(b + 208));
  for (int j = 0; j < 16; ++j) {
    u.d[j] = d * static_cast<float>(sc[j]);
    u.m[j] = 0;
  }
  for (int h = 0; h < 2; ++h, ql += 64, qh += 32) {
    int8_t* q = u.q + 128 * h;
    for (int l = 0; l < 32; ++l) {
      q[l] = static_cast<int8_t>(((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32);
      q[l + 32] = static_cast<int8_t>(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
      q[l + 64] = static_cast<int8_t>(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
      q[l + 96] = static_cast<int8_t>(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
    }
  }
}

// MXFP4: e8m0 exponent, 16 bytes of E2M1 nibbles (same order as Q4_0). Codes become
// twice the E2M1 value (integers -12..12) and the scale 2^(e-128).
void Unpack_mxfp4::run(const uint8_t* b, Unpacked& u) {
  static constexpr int8_t kTwiceE2M1[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  u.d[0] = std::ldexp(1.0f, static_cast<int>(b[0]) - 128);
  u.m[0] = 0;
  for (int j = 0; j < 16; ++j) {
    u.q[j] = kTwiceE2M1[b[1 + j] & 0xF];
    u.q[j + 16] = kTwiceE2M1[b[1 + j] >> 4];
  }
}

// NVFP4 (ggml): four UE4M3 scale bytes, then per 16 elements 8 bytes of E2M1 nibbles (low
// nibbles first). Codes become twice the E2M1 value, the scales half the UE4M3 value (bit 7
// ignored; 0x7F reads as 0), as ggml pairs kvalues_mxfp4 with ggml_ue4m3_to_fp32.
void Unpack_nvfp4::run(const uint8_t* b, Unpacked& u) {
  static constexpr int8_t kTwiceE2M1[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  for (int s = 0; s < 4; ++s) {
    const int e = (b[s] >> 3) & 0xF, man = b[s] & 7;
    const float v = b[s] == 0x7F ? 0.0f : e == 0 ? std::ldexp(static_cast<float>(man), -9)
                                                 : std::ldexp(static_cast<float>(8 + man), e - 10);
    u.d[s] = QGATE_MUTANT_ON(nvfp4_scale_signed) && (b[s] & 0x80) ? -0.5f * v : 0.5f * v;
    u.m[s] = 0;
    for (int j = 0; j < 8; ++j) {
      u.q[16 * s + j] = kTwiceE2M1[b[4 + 8 * s + j] & 0xF];
      u.q[16 * s + 8 + j] = kTwiceE2M1[b[4 + 8 * s + j] >> 4];
    }
  }
}

// Q1_0: fp16 d, then one bit per element, least significant first: set is +d, clear -d.
void Unpack_q1_0::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = 0;
  for (int j = 0; j < 16; ++j)
    for (int bit = 0; bit < 8; ++bit) u.q[8 * j + bit] = static_cast<int8_t>(((b[2 + j] >> bit) & 1) ? 1 : -1);
}

// Q2_0: fp16 d, then four 2-bit codes per byte, lowest bits first; x = d * (code - 1).
void Unpack_q2_0::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = h2f(rd16(b));
  u.m[0] = 0;
  for (int j = 0; j < 16; ++j)
    for (int s = 0; s < 4; ++s) u.q[4 * j + s] = static_cast<int8_t>(((b[2 + j] >> (2 * s)) & 3) - 1);
}

void Unpack_fp8_e4m3::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = bits2f(rd32(b));
  u.m[0] = 0;
  for (int j = 0; j < 32; ++j) u.f[j] = e4m3_to_f(b[4 + j]);
}
void Unpack_fp8_e5m2::run(const uint8_t* b, Unpacked& u) {
  u.d[0] = bits2f(rd32(b));
  u.m[0] = 0;
  for (int j = 0; j < 32; ++j) u.f[j] = e5m2_to_f(b[4 + j]);
}

}  // namespace qgate::cpu
