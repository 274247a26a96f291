/* An example qgate plugin (docs/PLUGINS.md): CPU kernels in plain C behind
 * plugin/qgate_plugin.h. Two are correct; the others are deliberately wrong, each in a way
 * the gate must report as that kernel's failure while the correct ones pass:
 *
 *   example_dequant_q4_0_f32         correct: q4_0 blocks -> f32
 *   example_matvec_q8_0_f32          correct: q8_0 weights x f32 activations, f32 sums per block
 *   wrong_dequant_q4_0_f32_crossed   wrong: nibbles read as interleaved pairs (crossed lanes)
 *   wrong_dequant_q4_0_f32_overrun   wrong: writes one element past the end of its output
 *   crash_matvec_q8_0_f32_null_write crashes: a store through a null pointer (SIGSEGV)
 *   hang_dequant_q4_0_f32_loop       never returns: an endless loop (the watchdog ends it)
 * The names keep the correct ones apart for a filter: --kernel example_ selects just them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plugin/qgate_plugin.h"

/* fp16 -> f32, exact (every fp16 value is an f32 value). */
static float f16_to_f32(uint16_t h) {
  const int sign = h >> 15, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  float v;
  if (e == 0) v = ldexpf((float)f, -24);                   /* zero and subnormals */
  else if (e == 31) v = f ? NAN : INFINITY;
  else v = ldexpf((float)(f | 0x400), e - 25);
  return sign ? -v : v;
}
static uint16_t load_u16(const uint8_t* p) { return (uint16_t)(p[0] | (p[1] << 8)); }

enum { QK = 32, Q4_0_BYTES = 18, Q8_0_BYTES = 34 };

static int32_t refuse(char* msg, size_t size, const char* why) {
  snprintf(msg, size, "%s", why);
  return 1;
}

/* user: 0 = correct, 1 = crossed lanes, 2 = one element past the end, 3 = never returns. */
static int32_t dequant_q4_0(const void* user, const uint8_t* w, const float* x, void* y, int64_t n, int64_t k,
                            int64_t m, void* stream, char* msg, size_t msg_size) {
  const int variant = (int)(intptr_t)user;
  if (k % QK) return refuse(msg, msg_size, "k is not a multiple of 32");
  if (variant == 3) {
    volatile int spin = 1;
    while (spin) {
    }
  }
  float* out = (float*)y;
  const int64_t blocks = n * (k / QK);
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* blk = w + b * Q4_0_BYTES;
    const float d = f16_to_f32(load_u16(blk));
    float* o = out + b * QK;
    for (int j = 0; j < 16; ++j) {
      const int lo = (blk[2 + j] & 0x0f) - 8, hi = (blk[2 + j] >> 4) - 8;
      if (variant == 1) {  /* the classic bug: low/high nibble as neighbours, not j and j + 16 */
        o[2 * j] = d * (float)lo;
        o[2 * j + 1] = d * (float)hi;
      } else {
        o[j] = d * (float)lo;
        o[j + 16] = d * (float)hi;
      }
    }
  }
  if (variant == 2) out[blocks * QK] = 0.0f;
  return 0;
}

/* user: 0 = correct, 1 = crashes. y[m][n] = sum over blocks of d * (sum_i q_i * x_i), all f32. */
static int32_t matvec_q8_0(const void* user, const uint8_t* w, const float* x, void* y, int64_t n, int64_t k,
                           int64_t m, void* stream, char* msg, size_t msg_size) {
  if (k % QK) return refuse(msg, msg_size, "k is not a multiple of 32");
  if ((intptr_t)user == 1) {
    float* volatile nowhere = NULL;  /* volatile: the compiler cannot see it is null */
    *nowhere = 1.0f;
  }
  float* out = (float*)y;
  const int64_t nb = k / QK;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t i = 0; i < n; ++i) {
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* blk = w + (i * nb + b) * Q8_0_BYTES;
        const float* xb = x + r * k + b * QK;
        float s = 0.0f;
        for (int j = 0; j < QK; ++j) s += (float)(int8_t)blk[2 + j] * xb[j];
        acc += f16_to_f32(load_u16(blk)) * s;
      }
      out[r * n + i] = acc;
    }
  return 0;
}

/* Dequant: exact, so no accumulator or depth to declare. */
#define DEQUANT(name, variant)                                                                          \
  {name, QGATE_OP_DEQUANT, "q4_0", QGATE_BACKEND_CPU, 1, 1, QK, 0,                                      \
   {QGATE_ACT_NONE, 23, {0, 1, 0}, QGATE_OUT_F32, 0}, 1, dequant_q4_0, (const void*)(intptr_t)(variant)}
/* Mat-vec: a chain of 32 products summed per block (32 roundings), the scale product (1),
 * then one addition per block: depth(k) = ceil(k/32) + 34 (a little over, never under). */
#define MATVEC(name, variant)                                                                           \
  {name, QGATE_OP_MATMUL, "q8_0", QGATE_BACKEND_CPU, 1, 1, QK, 8,                                       \
   {QGATE_ACT_NONE, 23, {1, 32, 34}, QGATE_OUT_F32, 0}, 1, matvec_q8_0, (const void*)(intptr_t)(variant)}

static const qgate_plugin_kernel kKernels[] = {
    DEQUANT("example_dequant_q4_0_f32", 0),
    MATVEC("example_matvec_q8_0_f32", 0),
    DEQUANT("wrong_dequant_q4_0_f32_crossed", 1),
    DEQUANT("wrong_dequant_q4_0_f32_overrun", 2),
    MATVEC("crash_matvec_q8_0_f32_null_write", 1),
    DEQUANT("hang_dequant_q4_0_f32_loop", 3),
};

QGATE_PLUGIN_EXPORT uint32_t qgate_plugin_get(uint32_t host_abi_version, const qgate_plugin_kernel** kernels,
                                              size_t* count) {
  if (host_abi_version != QGATE_PLUGIN_ABI_VERSION) return QGATE_PLUGIN_ABI_VERSION;
  *kernels = kKernels;
  *count = sizeof kKernels / sizeof kKernels[0];
  return QGATE_PLUGIN_ABI_VERSION;
}
