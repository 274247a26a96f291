/* An example plugin of ABI version 2 (docs/PLUGINS.md): CPU kernels written the way engines
 * write their dot products, each declared with the math it really performs, and one planted
 * defect of each, which the gate must reject while the correct ones pass.
 *
 *   engine_matvec_q4_1_q8_1s16    q4_1 x q8_1: d_w d_x sum(q_w q_x) + m_w s_x, s_x the block's
 *                                 stored fp16 sum (QGATE_ACT_Q8_1_S16)
 *   engine_matvec_q5_1_q8_1s16    the same for q5_1
 *   engine_matvec_q4_0_q8_0       q4_0 x q8_0: d_w d_x sum((q_w - 8) q_x) (QGATE_ACT_Q8_0)
 *   engine_matvec_q8_0_q8_0       q8_0 x q8_0
 *   engine_matvec_q6_K_f32_split  q6_K x f32 in split form: d sc (sum q x - 32 sum x) per 16
 *   engine_matvec_tq2_0_f32_split tq2_0 x f32 in split form: d (sum q x - sum x)
 *   engine_matvec_q8_0_f32_splitk q8_0 x f32 with K split over 4 threads whose partial sums
 *                                 land in y by atomic adds in whatever order the threads
 *                                 finish: declared non-deterministic
 *   engine_matvec_q8_0_f32_panels q8_0 x f32 walking K in panels of 1024 (its tile_k), the
 *                                 panels' sums added at the end
 *   engine_gate_up_q4_0_q8_0      SwiGLU over [W_gate; W_up], one q8_0 quantization of x for both
 *   engine_moe_q8_0_q8_0          indexed MoE: each token through the experts its ids name
 *   engine_add_rmsnorm_f32, engine_qk_norm_rope_f32, engine_silu_mul_f32, engine_moe_route_f32,
 *   engine_attn_eager_f32         the fusions and eager attention in plain f32
 *   stale_matvec_q8_0_f32         keeps the weights it converted on its first call and reuses
 *                                 them whenever the shape repeats: right on its first call of
 *                                 a shape, wrong once the data changes
 * and wrong_<name> for each correct kernel, with one defect each (see `defect` below).
 * configure: --plugin-arg threads=N sets the split-K kernel's thread count (default 4).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/qgate_plugin.h"

static float f16_to_f32(uint16_t h) {
  const int sign = h >> 15, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  float v;
  if (e == 0) v = ldexpf((float)f, -24);
  else if (e == 31) v = f ? NAN : INFINITY;
  else v = ldexpf((float)(f | 0x400), e - 25);
  return sign ? -v : v;
}
/* f32 -> fp16, round to nearest even (overflow to infinity). */
static uint16_t f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff;
  uint32_t m = x & 0x7fffff;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
  const int E = (int)e - 112;
  if (E >= 31) return (uint16_t)(sign | 0x7c00);
  if (E <= 0) {
    if (E < -10) return (uint16_t)sign;
    m |= 0x800000;
    const int shift = 14 - E;
    uint32_t hm = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1))) ++hm;
    return (uint16_t)(sign | hm);
  }
  uint32_t h = sign | ((uint32_t)E << 10) | (m >> 13);
  const uint32_t rem = m & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return (uint16_t)h;
}
static float round16(float v) { return f16_to_f32(f32_to_f16(v)); }
static uint16_t u16(const uint8_t* p) { return (uint16_t)(p[0] | (p[1] << 8)); }

/* The activation block as the engine quantizes it: d = amax/127, q = round(x/d) (the engine
 * multiplies by 1/d), the stored fp16 d and, for q8_1, s = fp16(d * sum q). */
typedef struct { int8_t q[32]; float d, s; } qblock;
static void quantize32(const float* x, qblock* b) {
  float amax = 0;
  for (int j = 0; j < 32; ++j) amax = fmaxf(amax, fabsf(x[j]));
  const float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
  int sum = 0;
  for (int j = 0; j < 32; ++j) {
    b->q[j] = (int8_t)roundf(x[j] * id);
    sum += b->q[j];
  }
  b->d = round16(d);
  b->s = round16(d * (float)sum);
}

static int refuse(char* msg, size_t n, const char* why) {
  snprintf(msg, n, "%s", why);
  return 1;
}

/* Element j (0..31) of a q4 / q5 legacy block's codes; q5 adds bit j of qh. `shift` is the
 * defect of wrong_ q5_1: the fifth bit read from the neighbouring lane. */
static int nib(const uint8_t* qs, int j) { return j < 16 ? (qs[j] & 15) : (qs[j - 16] >> 4); }
static int q5bit(const uint8_t* qh, int j, int shift) {
  const uint32_t h = (uint32_t)qh[0] | ((uint32_t)qh[1] << 8) | ((uint32_t)qh[2] << 16) | ((uint32_t)qh[3] << 24);
  return (int)((h >> ((j + shift) & 31)) & 1) << 4;
}

enum kind { Q4_1, Q5_1, Q4_0, Q8_0 };
typedef struct { enum kind kind; int defect; } legacy_user;

/* One weight row (nb blocks) against one quantized activation row: per block an exact integer
 * dot, scaled in f32, the block terms summed in order. */
static float legacy_row(const legacy_user* u, const uint8_t* row, int64_t nb, const qblock* xq) {
  static const int bytes[] = {20, 24, 18, 34};
  float acc = 0;
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* blk = row + b * bytes[u->kind];
    const qblock* a = &xq[b];
    int sumi = 0;
    float term;
    switch (u->kind) {
      case Q4_1: case Q5_1: {
        const uint8_t* qs = blk + (u->kind == Q4_1 ? 4 : 8);
        for (int j = 0; j < 32; ++j) {
          const int q = nib(qs, j) | (u->kind == Q5_1 ? q5bit(blk + 4, j, u->defect) : 0);
          sumi += q * a->q[j];
        }
        /* defect (q4_1): the min of the neighbouring block of the row */
        const uint8_t* mblk = u->defect && u->kind == Q4_1 && b + 1 < nb ? blk + bytes[u->kind] : blk;
        term = f16_to_f32(u16(blk)) * a->d * (float)sumi + f16_to_f32(u16(mblk + 2)) * a->s;
        break;
      }
      case Q4_0:
        /* defect: codes centred on 7 instead of 8 */
        for (int j = 0; j < 32; ++j) sumi += (nib(blk + 2, j) - (u->defect == 1 ? 7 : 8)) * a->q[j];
        term = f16_to_f32(u16(blk)) * a->d * (float)sumi;
        break;
      default:
        for (int j = 0; j < 32; ++j) sumi += (int8_t)blk[2 + j] * a->q[j];
        /* defect: the activation scale left unrounded (fp32 d where the block stores fp16) */
        term = f16_to_f32(u16(blk)) * (u->defect == 1 ? fabsf(a->d) * 1.001f : a->d) * (float)sumi;
        break;
    }
    acc += term;
  }
  return acc;
}
static int64_t legacy_row_bytes(const legacy_user* u, int64_t k) {
  static const int bytes[] = {20, 24, 18, 34};
  return k / 32 * bytes[u->kind];
}
static qblock* quantize_rows(const float* x, int64_t m, int64_t k) {
  qblock* xq = (qblock*)malloc(sizeof(qblock) * (size_t)(m * (k / 32)));
  if (xq)
    for (int64_t i = 0; i < m * (k / 32); ++i) quantize32(x + i * 32, &xq[i]);
  return xq;
}

/* Legacy formats against quantized activations. */
static int32_t matvec_legacy(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  const legacy_user* u = (const legacy_user*)user;
  if (c->k % 32) return refuse(msg, n, "k is not a multiple of 32");
  const int64_t nb = c->k / 32;
  qblock* xq = quantize_rows((const float*)c->x.ptr, c->m, c->k);
  if (!xq) return refuse(msg, n, "out of memory");
  for (int64_t r = 0; r < c->m; ++r)
    for (int64_t i = 0; i < c->n; ++i)
      ((float*)c->y.ptr)[r * c->n + i] =
          legacy_row(u, (const uint8_t*)c->w.ptr + i * legacy_row_bytes(u, c->k), nb, xq + r * nb);
  free(xq);
  return 0;
}

/* gate_up: rows 0..N-1 the gate, N..2N-1 the up projection, one quantization of x for both;
 * y = silu(g) * u with silu(g) = g / (1 + expf(-g)). defect 2: SiLU applied to the up half. */
static int32_t gate_up_legacy(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  const legacy_user* u = (const legacy_user*)user;
  if (c->k % 32 || c->n % 2) return refuse(msg, n, "k is not a multiple of 32 or the rows are odd");
  const int64_t nb = c->k / 32, half = c->n / 2, rb = legacy_row_bytes(u, c->k);
  qblock* xq = quantize_rows((const float*)c->x.ptr, c->m, c->k);
  if (!xq) return refuse(msg, n, "out of memory");
  const uint8_t* w = (const uint8_t*)c->w.ptr;
  for (int64_t r = 0; r < c->m; ++r)
    for (int64_t i = 0; i < half; ++i) {
      float g = legacy_row(u, w + i * rb, nb, xq + r * nb), up = legacy_row(u, w + (half + i) * rb, nb, xq + r * nb);
      if (u->defect == 2) { const float t = g; g = up; up = t; }
      ((float*)c->y.ptr)[r * half + i] = g / (1.0f + expf(-g)) * up;
    }
  free(xq);
  return 0;
}

/* Indexed MoE: output row t*top_k + s is token t through expert ids[t*top_k + s]. defect 2: the
 * slot's expert taken from the next slot. */
static int32_t moe_legacy(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  const legacy_user* u = (const legacy_user*)user;
  if (c->k % 32 || c->experts < 1 || c->n % c->experts) return refuse(msg, n, "bad shape");
  const int64_t nb = c->k / 32, rows = c->n / c->experts, rb = legacy_row_bytes(u, c->k);
  qblock* xq = quantize_rows((const float*)c->x.ptr, c->m, c->k);
  if (!xq) return refuse(msg, n, "out of memory");
  const int32_t* ids = (const int32_t*)c->ids.ptr;
  for (int64_t t = 0; t < c->m; ++t)
    for (int64_t s = 0; s < c->top_k; ++s) {
      const int32_t e = ids[t * c->top_k + (u->defect == 2 ? (s + 1) % c->top_k : s)];
      for (int64_t i = 0; i < rows; ++i)
        ((float*)c->y.ptr)[(t * c->top_k + s) * rows + i] =
            legacy_row(u, (const uint8_t*)c->w.ptr + (e * rows + i) * rb, nb, xq + t * nb);
    }
  free(xq);
  return 0;
}

/* q6_K element e (0..255) and its sub-block scale index (ggml's block_q6_K: ql[128], qh[64],
 * scales[16], d). */
static int q6_code(const uint8_t* b, int e, int* sc) {
  const int half = e / 128, r = e % 128, quarter = r / 32, l = r % 32;
  const uint8_t* ql = b + 64 * half;
  const uint8_t* qh = b + 128 + 32 * half;
  const int low = quarter == 0 ? ql[l] & 15 : quarter == 1 ? ql[l + 32] & 15 : quarter == 2 ? ql[l] >> 4 : ql[l + 32] >> 4;
  *sc = 8 * half + l / 16 + 2 * quarter;
  return low | (((qh[l] >> (2 * quarter)) & 3) << 4);
}

/* q6_K x f32, split: per 16 elements d*sc*(sum q x) - 32*d*sc*(sum x), all in f32.
 * defect: the offset 31. */
static int32_t matvec_q6_K_split(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  const int defect = (int)(intptr_t)user;
  if (c->k % 256) return refuse(msg, n, "k is not a multiple of 256");
  const uint8_t* w = (const uint8_t*)c->w.ptr;
  const float* x = (const float*)c->x.ptr;
  float* y = (float*)c->y.ptr;
  const int64_t nb = c->k / 256;
  for (int64_t r = 0; r < c->m; ++r)
    for (int64_t i = 0; i < c->n; ++i) {
      float acc = 0;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* blk = w + (i * nb + b) * 210;
        const float d = f16_to_f32(u16(blk + 208));
        const float* xb = x + r * c->k + b * 256;
        float qx[16] = {0}, sx[16] = {0};
        for (int e = 0; e < 256; ++e) {
          int sc;
          const int q = q6_code(blk, e, &sc);
          qx[sc] += (float)q * xb[e];
          sx[sc] += xb[e];
        }
        for (int s = 0; s < 16; ++s) {
          const float ds = d * (float)(int8_t)blk[192 + s];
          acc += ds * qx[s] - (float)(defect ? 31 : 32) * ds * sx[s];
        }
      }
      y[r * c->n + i] = acc;
    }
  return 0;
}

/* tq2_0 (qs[64], d): element 128 j + 32 l + m holds bits 2l of qs[32 j + m]; value d (q - 1).
 * Split: d (sum q x - sum x) per block. defect: the crumbs of a byte read high-first. */
static int32_t matvec_tq2_0_split(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  const int defect = (int)(intptr_t)user;
  if (c->k % 256) return refuse(msg, n, "k is not a multiple of 256");
  const uint8_t* w = (const uint8_t*)c->w.ptr;
  const float* x = (const float*)c->x.ptr;
  float* y = (float*)c->y.ptr;
  const int64_t nb = c->k / 256;
  for (int64_t r = 0; r < c->m; ++r)
    for (int64_t i = 0; i < c->n; ++i) {
      float acc = 0;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* blk = w + (i * nb + b) * 66;
        const float* xb = x + r * c->k + b * 256;
        float qx = 0, sx = 0;
        for (int e = 0; e < 256; ++e) {
          const int j = e / 128, l = (e % 128) / 32, m = e % 32;
          const int q = (blk[32 * j + m] >> (2 * (defect ? 3 - l : l))) & 3;
          qx += (float)q * xb[e];
          sx += xb[e];
        }
        acc += f16_to_f32(u16(blk + 64)) * (qx - sx);
      }
      y[r * c->n + i] = acc;
    }
  return 0;
}

/* ---- split-K over threads, partial sums added to y atomically in completion order ---- */
typedef struct { int threads; } session_state;
typedef struct {
  const qgate_plugin_v2_call* c;
  int part, parts, skip_row;
} splitk_job;
static void atomic_add(float* p, float v) {
  uint32_t old = __atomic_load_n((uint32_t*)p, __ATOMIC_RELAXED), next;
  do {
    float f;
    memcpy(&f, &old, 4);
    f += v;
    memcpy(&next, &f, 4);
  } while (!__atomic_compare_exchange_n((uint32_t*)p, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}
static void* splitk_part(void* arg) {
  const splitk_job* j = (const splitk_job*)arg;
  const qgate_plugin_v2_call* c = j->c;
  const int64_t nb = c->k / 32, b0 = nb * j->part / j->parts, b1 = nb * (j->part + 1) / j->parts;
  const uint8_t* w = (const uint8_t*)c->w.ptr;
  const float* x = (const float*)c->x.ptr;
  for (int64_t r = 0; r < c->m; ++r)
    for (int64_t i = 0; i < c->n; ++i) {
      if (j->skip_row && i == c->n - 1) continue; /* defect: the last row never accumulated */
      float acc = 0;
      for (int64_t b = b0; b < b1; ++b) {
        const uint8_t* blk = w + (i * nb + b) * 34;
        float s = 0;
        for (int e = 0; e < 32; ++e) s += (float)(int8_t)blk[2 + e] * x[r * c->k + b * 32 + e];
        acc += f16_to_f32(u16(blk)) * s;
      }
      if (b1 > b0) atomic_add((float*)c->y.ptr + r * c->n + i, acc);
    }
  return NULL;
}
static int32_t matvec_q8_0_splitk(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  if (c->k % 32) return refuse(msg, n, "k is not a multiple of 32");
  const session_state* st = (const session_state*)c->session;
  int parts = st ? st->threads : 4;
  if (parts > 16) parts = 16;
  float* y = (float*)c->y.ptr;
  for (int64_t i = 0; i < c->m * c->n; ++i) y[i] = 0.0f;
  pthread_t t[16];
  splitk_job jobs[16];
  for (int p = 0; p < parts; ++p) {
    jobs[p] = (splitk_job){c, p, parts, (int)(intptr_t)user};
    if (pthread_create(&t[p], NULL, splitk_part, &jobs[p]) != 0) {
      for (int q = 0; q < p; ++q) pthread_join(t[q], NULL);
      return refuse(msg, n, "pthread_create failed");
    }
  }
  for (int p = 0; p < parts; ++p) pthread_join(t[p], NULL);
  return 0;
}

/* ---- a kernel that walks K in panels (declared tile_k) ---- */
/* q8_0 x f32 with K walked in panels of kPanel elements (one panel of x stays in L1 for the
 * rows), each panel's sum kept apart and the panels' sums added at the end. defect: the
 * panel count taken as k / kPanel once a row holds a whole panel (the row's ragged last panel
 * dropped), which no row shorter than one panel shows. */
enum { kPanel = 1024 };
static int32_t matvec_q8_0_panels(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  if (c->k % 32) return refuse(msg, n, "k is not a multiple of 32");
  const int64_t nb = c->k / 32;
  const int64_t panels = user && c->k >= kPanel ? c->k / kPanel : (c->k + kPanel - 1) / kPanel;
  const float* x = (const float*)c->x.ptr;
  for (int64_t r = 0; r < c->m; ++r)
    for (int64_t i = 0; i < c->n; ++i) {
      float total = 0;
      for (int64_t p = 0; p < panels; ++p) {
        float acc = 0;
        const int64_t b1 = (p + 1) * (kPanel / 32) < nb ? (p + 1) * (kPanel / 32) : nb;
        for (int64_t b = p * (kPanel / 32); b < b1; ++b) {
          const uint8_t* blk = (const uint8_t*)c->w.ptr + (i * nb + b) * 34;
          float s = 0;
          for (int e = 0; e < 32; ++e) s += (float)(int8_t)blk[2 + e] * x[r * c->k + b * 32 + e];
          acc += f16_to_f32(u16(blk)) * s;
        }
        total += acc;
      }
      ((float*)c->y.ptr)[r * c->n + i] = total;
    }
  return 0;
}

/* ---- a kernel with state that survives its call ---- */
static float* g_cache;       /* the weights as f32, converted on the first call of a shape */
static int64_t g_cache_n, g_cache_k;
static int32_t matvec_q8_0_stale(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  (void)user;
  if (c->k % 32) return refuse(msg, n, "k is not a multiple of 32");
  const int64_t nb = c->k / 32;
  if (!g_cache || g_cache_n != c->n || g_cache_k != c->k) { /* the bug: keyed by shape, not by the data */
    free(g_cache);
    g_cache = (float*)malloc(sizeof(float) * (size_t)(c->n * c->k));
    if (!g_cache) return refuse(msg, n, "out of memory");
    for (int64_t i = 0; i < c->n; ++i)
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* blk = (const uint8_t*)c->w.ptr + (i * nb + b) * 34;
        for (int e = 0; e < 32; ++e) g_cache[i * c->k + b * 32 + e] = f16_to_f32(u16(blk)) * (float)(int8_t)blk[2 + e];
      }
    g_cache_n = c->n, g_cache_k = c->k;
  }
  const float* x = (const float*)c->x.ptr;
  for (int64_t r = 0; r < c->m; ++r)
    for (int64_t i = 0; i < c->n; ++i) {
      float acc = 0;
      for (int64_t e = 0; e < c->k; ++e) acc += g_cache[i * c->k + e] * x[r * c->k + e];
      ((float*)c->y.ptr)[r * c->n + i] = acc;
    }
  return 0;
}

/* ---- fusions and attention (f32 in, f32 out) ---- */

/* y2 = x + res, y = y2 / sqrt(mean(y2^2) + eps) * w. defect: eps added outside the root. */
static int32_t add_rmsnorm(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  (void)msg, (void)n;
  const float *x = (const float*)c->x.ptr, *res = (const float*)c->res.ptr, *w = (const float*)c->norm_w.ptr;
  float *y = (float*)c->y.ptr, *h = (float*)c->y2.ptr;
  for (int64_t r = 0; r < c->rows; ++r) {
    float ss = 0;
    for (int64_t i = 0; i < c->cols; ++i) {
      h[r * c->cols + i] = x[r * c->cols + i] + res[r * c->cols + i];
      ss += h[r * c->cols + i] * h[r * c->cols + i];
    }
    const float ms = ss / (float)c->cols;
    const float inv = user ? 1.0f / (sqrtf(ms) + c->eps) : 1.0f / sqrtf(ms + c->eps);
    for (int64_t i = 0; i < c->cols; ++i) y[r * c->cols + i] = h[r * c->cols + i] * inv * w[i];
  }
  return 0;
}

/* y = silu(x) * res. defect: SiLU of the up input. */
static int32_t silu_mul(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  (void)msg, (void)n;
  const float *g = (const float*)c->x.ptr, *u = (const float*)c->res.ptr;
  for (int64_t i = 0; i < c->rows * c->cols; ++i) {
    const float a = user ? u[i] : g[i], b = user ? g[i] : u[i];
    ((float*)c->y.ptr)[i] = a / (1.0f + expf(-a)) * b;
  }
  return 0;
}

/* Router: softmax over the row's logits, the top_k most probable (equal: lower index first),
 * their weights renormalized. defect: the weights left unrenormalized. */
static int32_t moe_route(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  if (c->top_k < 1 || c->top_k > c->cols || c->cols > 1024) return refuse(msg, n, "bad top_k or too many experts");
  float p[1024];
  char taken[1024];
  for (int64_t r = 0; r < c->rows; ++r) {
    const float* x = (const float*)c->x.ptr + r * c->cols;
    float m = x[0], sum = 0, chosen = 0;
    for (int64_t e = 1; e < c->cols; ++e) m = fmaxf(m, x[e]);
    for (int64_t e = 0; e < c->cols; ++e) sum += (p[e] = expf(x[e] - m));
    for (int64_t e = 0; e < c->cols; ++e) p[e] /= sum, taken[e] = 0;
    int32_t* ids = (int32_t*)c->ids.ptr + r * c->top_k;
    float* w = (float*)c->y.ptr + r * c->top_k;
    for (int64_t s = 0; s < c->top_k; ++s) {
      int64_t best = -1;
      for (int64_t e = 0; e < c->cols; ++e)
        if (!taken[e] && (best < 0 || p[e] > p[best])) best = e;
      taken[best] = 1, ids[s] = (int32_t)best, w[s] = p[best], chosen += p[best];
    }
    if (!user)
      for (int64_t s = 0; s < c->top_k; ++s) w[s] /= chosen;
  }
  return 0;
}

/* One head: RMSNorm over d (weights w, eps, a sequential sum of squares), then RoPE at pos
 * (theta_i = pos * base^(-2i/d), pairs (i, i + d/2) for NeoX, (2i, 2i+1) interleaved).
 * swapped: the pairing of the other mode. */
static void norm_rope(const float* src, const float* w, int64_t d, float eps, int32_t pos, float base, int neox,
                      float* dst) {
  float tmp[1024], ss = 0;
  for (int64_t i = 0; i < d; ++i) ss += src[i] * src[i];
  const float ir = 1.0f / sqrtf(ss / (float)d + eps);
  for (int64_t i = 0; i < d; ++i) tmp[i] = src[i] * ir * w[i];
  for (int64_t i = 0; i < d / 2; ++i) {
    const int64_t i0 = neox ? i : 2 * i, i1 = neox ? i + d / 2 : 2 * i + 1;
    const float theta = (float)pos * powf(base, (float)(-2 * i) / (float)d);
    const float c = cosf(theta), sn = sinf(theta), x0 = tmp[i0], x1 = tmp[i1];
    dst[i0] = fmaf(-x1, sn, x0 * c);
    dst[i1] = fmaf(x1, c, x0 * sn);
  }
}

/* q/k norm + RoPE, q to y, k and v into the caches at row pos[t]. defect: RoPE pairs swapped. */
static int32_t qk_norm_rope(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  const int64_t d = c->head_dim;
  if (d < 2 || d % 2 || d > 1024) return refuse(msg, n, "head_dim must be even, 2..1024");
  const int32_t* pos = (const int32_t*)c->pos.ptr;
  for (int64_t t = 0; t < c->tokens; ++t)
    if (pos[t] < 0 || pos[t] >= c->kv_cap) return refuse(msg, n, "a position lies outside the KV cache");
  const int neox = (c->rope_mode == 0) != (user != NULL);
  const float *q = (const float*)c->q.ptr, *k = (const float*)c->k_new.ptr, *v = (const float*)c->v_new.ptr;
  for (int64_t t = 0; t < c->tokens; ++t) {
    for (int64_t h = 0; h < c->n_head; ++h)
      norm_rope(q + (t * c->n_head + h) * d, (const float*)c->w_q.ptr, d, c->eps, pos[t], c->rope_base, neox,
                (float*)c->y.ptr + (t * c->n_head + h) * d);
    for (int64_t h = 0; h < c->n_head_kv; ++h) {
      float* kc = (float*)c->k_cache.ptr + (h * c->kv_cap + pos[t]) * d;
      float* vc = (float*)c->v_cache.ptr + (h * c->kv_cap + pos[t]) * d;
      norm_rope(k + (t * c->n_head_kv + h) * d, (const float*)c->w_k.ptr, d, c->eps, pos[t], c->rope_base, neox, kc);
      for (int64_t i = 0; i < d; ++i) vc[i] = v[(t * c->n_head_kv + h) * d + i];
    }
  }
  return 0;
}

/* Eager causal GQA attention: scores, softmax with P = e / l in f32, then P.V. defect: every
 * query sees one key past its position. */
static int32_t attention(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t n) {
  const int64_t d = c->head_dim, g = c->n_head / c->n_head_kv;
  float* s = (float*)malloc(sizeof(float) * (size_t)(c->kv_len + 1));
  if (!s) return refuse(msg, n, "out of memory");
  const float *q = (const float*)c->q.ptr, *kc = (const float*)c->k_cache.ptr, *vc = (const float*)c->v_cache.ptr;
  for (int64_t t = 0; t < c->tokens; ++t)
    for (int64_t h = 0; h < c->n_head; ++h) {
      int64_t last = c->kv_len - c->tokens + t + (user ? 1 : 0);
      if (last > c->kv_len - 1) last = c->kv_len - 1;
      const float* qv = q + (t * c->n_head + h) * d;
      const int64_t kh = h / g;
      float m = -INFINITY, l = 0;
      for (int64_t j = 0; j <= last; ++j) {
        float dot = 0;
        for (int64_t i = 0; i < d; ++i) dot += qv[i] * kc[(kh * c->kv_cap + j) * d + i];
        s[j] = c->scale * dot;
        m = fmaxf(m, s[j]);
      }
      for (int64_t j = 0; j <= last; ++j) l += (s[j] = expf(s[j] - m));
      for (int64_t j = 0; j <= last; ++j) s[j] /= l;
      float* o = (float*)c->y.ptr + (t * c->n_head + h) * d;
      for (int64_t i = 0; i < d; ++i) {
        float acc = 0;
        for (int64_t j = 0; j <= last; ++j) acc += s[j] * vc[(kh * c->kv_cap + j) * d + i];
        o[i] = acc;
      }
    }
  free(s);
  return 0;
}

static int32_t init(const qgate_plugin_v2_config* cfg, const qgate_plugin_v2_device* device, void** session, char* msg,
                    size_t n) {
  (void)device;
  session_state* st = (session_state*)malloc(sizeof *st);
  if (!st) return refuse(msg, n, "out of memory");
  st->threads = 4;
  for (uint32_t i = 0; i < cfg->count; ++i)
    if (strcmp(cfg->keys[i], "threads") == 0) st->threads = atoi(cfg->values[i]);
  if (st->threads < 1 || st->threads > 16) {
    free(st);
    return refuse(msg, n, "threads must be 1..16");
  }
  *session = st;
  return 0;
}
static void teardown(void* session) { free(session); }

static const legacy_user kQ41 = {Q4_1, 0}, kQ41Bad = {Q4_1, 1}, kQ51 = {Q5_1, 0}, kQ51Bad = {Q5_1, 1},
                         kQ40 = {Q4_0, 0}, kQ40Bad = {Q4_0, 1}, kQ80 = {Q8_0, 0}, kQ80Bad = {Q8_0, 1},
                         kQ40Swapped = {Q4_0, 2}, kQ80NextSlot = {Q8_0, 2};

/* Depths: the quantized kernels add one f32 block term per 32 (scale products, the integer
 * dot exact): ceil(k/32) + 4. The f32 split kernels sum 16 (q6_K) or 256 (tq2_0) products per
 * partial, then the partials: ceil(k/16) + 16 and ceil(k/256) + 256 + 4. The split-K kernel:
 * 32 products, then ceil(k/32)/4 blocks per part, then up to 16 atomic adds in any order. The
 * panel kernel: 32 products, the scale, 32 blocks of a panel, then ceil(k/1024) panels, with
 * room to spare: ceil(k/1024) + 68. */
#define KOP(op, name, fmt, act, tk, depth_b, depth_c, det, fn, user)                                             \
  {name, op, fmt, QGATE_BACKEND_CPU, 1, 1, tk, 8, {act, 23, {1, depth_b, depth_c}, QGATE_OUT_F32, 0}, det, fn, user, NULL}
#define K(name, fmt, act, tk, depth_b, depth_c, det, fn, user)                                                  \
  {name, QGATE_OP_MATMUL, fmt, QGATE_BACKEND_CPU, 1, 1, tk, 8, {act, 23, {1, depth_b, depth_c}, QGATE_OUT_F32, 0}, \
   det, fn, user, NULL}
static const qgate_plugin_v2_kernel kKernels[] = {
    K("engine_matvec_q4_1_q8_1s16", "q4_1", QGATE_ACT_Q8_1_S16, 32, 32, 6, 1, matvec_legacy, &kQ41),
    K("engine_matvec_q5_1_q8_1s16", "q5_1", QGATE_ACT_Q8_1_S16, 32, 32, 6, 1, matvec_legacy, &kQ51),
    K("engine_matvec_q4_0_q8_0", "q4_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, matvec_legacy, &kQ40),
    K("engine_matvec_q8_0_q8_0", "q8_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, matvec_legacy, &kQ80),
    K("engine_matvec_q6_K_f32_split", "q6_K", QGATE_ACT_NONE, 256, 16, 20, 1, matvec_q6_K_split, (void*)0),
    K("engine_matvec_tq2_0_f32_split", "tq2_0", QGATE_ACT_NONE, 256, 256, 262, 1, matvec_tq2_0_split, (void*)0),
    K("engine_matvec_q8_0_f32_splitk", "q8_0", QGATE_ACT_NONE, 32, 32, 52, 0, matvec_q8_0_splitk, (void*)0),
    K("engine_matvec_q8_0_f32_panels", "q8_0", QGATE_ACT_NONE, kPanel, kPanel, 68, 1, matvec_q8_0_panels, (void*)0),
    K("wrong_matvec_q4_1_q8_1s16_neighbour_min", "q4_1", QGATE_ACT_Q8_1_S16, 32, 32, 6, 1, matvec_legacy, &kQ41Bad),
    K("wrong_matvec_q5_1_q8_1s16_crossed_high_bit", "q5_1", QGATE_ACT_Q8_1_S16, 32, 32, 6, 1, matvec_legacy, &kQ51Bad),
    K("wrong_matvec_q4_0_q8_0_offset7", "q4_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, matvec_legacy, &kQ40Bad),
    K("wrong_matvec_q8_0_q8_0_scale", "q8_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, matvec_legacy, &kQ80Bad),
    K("wrong_matvec_q6_K_f32_split_offset31", "q6_K", QGATE_ACT_NONE, 256, 16, 20, 1, matvec_q6_K_split, (void*)1),
    K("wrong_matvec_tq2_0_f32_split_crumbs", "tq2_0", QGATE_ACT_NONE, 256, 256, 262, 1, matvec_tq2_0_split, (void*)1),
    K("wrong_matvec_q8_0_f32_splitk_skips_row", "q8_0", QGATE_ACT_NONE, 32, 32, 52, 0, matvec_q8_0_splitk, (void*)1),
    K("wrong_matvec_q8_0_f32_panels_tail_dropped", "q8_0", QGATE_ACT_NONE, kPanel, kPanel, 68, 1, matvec_q8_0_panels, (void*)1),
    K("stale_matvec_q8_0_f32", "q8_0", QGATE_ACT_NONE, 32, 1, 1, 1, matvec_q8_0_stale, (void*)0),
    KOP(QGATE_OP_GATE_UP, "engine_gate_up_q4_0_q8_0", "q4_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, gate_up_legacy, &kQ40),
    KOP(QGATE_OP_GATE_UP, "wrong_gate_up_q4_0_q8_0_silu_on_up", "q4_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, gate_up_legacy, &kQ40Swapped),
    KOP(QGATE_OP_MOE_MATMUL, "engine_moe_q8_0_q8_0", "q8_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, moe_legacy, &kQ80),
    KOP(QGATE_OP_MOE_MATMUL, "wrong_moe_q8_0_q8_0_next_slot", "q8_0", QGATE_ACT_Q8_0, 32, 32, 6, 1, moe_legacy, &kQ80NextSlot),
    /* Fusions and attention: depth = the sequential reduction over the row (norm) or head_dim
     * (q.k); tile_k 1 = eager attention, P in f32. */
    KOP(QGATE_OP_ADD_RMSNORM, "engine_add_rmsnorm_f32", NULL, QGATE_ACT_NONE, 1, 1, 2, 1, add_rmsnorm, NULL),
    KOP(QGATE_OP_ADD_RMSNORM, "wrong_add_rmsnorm_f32_eps_outside", NULL, QGATE_ACT_NONE, 1, 1, 2, 1, add_rmsnorm, (void*)1),
    KOP(QGATE_OP_SILU_MUL, "engine_silu_mul_f32", NULL, QGATE_ACT_NONE, 1, 1, 1, 1, silu_mul, NULL),
    KOP(QGATE_OP_SILU_MUL, "wrong_silu_mul_f32_silu_on_up", NULL, QGATE_ACT_NONE, 1, 1, 1, 1, silu_mul, (void*)1),
    KOP(QGATE_OP_MOE_ROUTE, "engine_moe_route_f32", NULL, QGATE_ACT_NONE, 1, 1, 1, 1, moe_route, NULL),
    KOP(QGATE_OP_MOE_ROUTE, "wrong_moe_route_f32_not_renormalized", NULL, QGATE_ACT_NONE, 1, 1, 1, 1, moe_route, (void*)1),
    KOP(QGATE_OP_QK_NORM_ROPE, "engine_qk_norm_rope_f32", NULL, QGATE_ACT_NONE, 1, 1, 2, 1, qk_norm_rope, NULL),
    KOP(QGATE_OP_QK_NORM_ROPE, "wrong_qk_norm_rope_f32_pairs_swapped", NULL, QGATE_ACT_NONE, 1, 1, 2, 1, qk_norm_rope, (void*)1),
    KOP(QGATE_OP_ATTENTION, "engine_attn_eager_f32", NULL, QGATE_ACT_NONE, 1, 1, 2, 1, attention, NULL),
    KOP(QGATE_OP_ATTENTION, "wrong_attn_eager_f32_sees_next_key", NULL, QGATE_ACT_NONE, 1, 1, 2, 1, attention, (void*)1),
};
static const qgate_plugin_v2_library kLibrary = {sizeof(qgate_plugin_v2_library), QGATE_PLUGIN_V2_ABI_VERSION, kKernels,
                                                 sizeof kKernels / sizeof kKernels[0], init, teardown};

QGATE_PLUGIN_EXPORT const qgate_plugin_v2_library* qgate_plugin_v2_get(uint32_t host_abi_version,
                                                                       const qgate_plugin_v2_config* config, char* msg,
                                                                       size_t n) {
  (void)config;
  if (host_abi_version != QGATE_PLUGIN_V2_ABI_VERSION) {
    snprintf(msg, n, "built for ABI version 2");
    return NULL;
  }
  return &kLibrary;
}
