/* The part of ggml's public C API the adapter calls, declared from ggml's headers as they
 * document it (include/ggml.h, include/ggml-cpu.h, include/ggml-backend.h of ggml 0.23;
 * src/ggml-quants.h for the exported row functions). Nothing here is linked: the adapter
 * opens the libraries at run time and looks every symbol up by name, so one build of the
 * adapter gates any ggml build whose types agree (checked at load: ggml_api_types below).
 */
#ifndef QGATE_GGML_API_H
#define QGATE_GGML_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ggml.h: a row of k values in and out of a quantized type. */
typedef void (*ggml_to_float_fn)(const void* x, float* y, int64_t k);
typedef void (*ggml_from_float_fn)(const float* x, void* y, int64_t k);

/* ggml.h: struct ggml_type_traits, returned by ggml_get_type_traits(enum ggml_type). */
typedef struct ggml_type_traits_decl {
  const char* type_name;
  int64_t blck_size;
  int64_t blck_size_interleave;
  size_t type_size;
  bool is_quantized;
  ggml_to_float_fn to_float;
  ggml_from_float_fn from_float_ref;
} ggml_type_traits_decl;

/* ggml-cpu.h: s[0] = dot(x, y) over n values of x's type and y's (vec_dot_type); bs, bx, by
 * are strides used only when nrc > 1 (nrc = the rows done at once, traits.nrows). */
typedef void (*ggml_vec_dot_fn)(int n, float* s, size_t bs, const void* x, size_t bx, const void* y, size_t by,
                                int nrc);

/* ggml-cpu.h: struct ggml_type_traits_cpu, from ggml_get_type_traits_cpu(enum ggml_type) of a
 * CPU backend library (each variant library, libggml-cpu-<arch>.so, has its own). */
typedef struct ggml_type_traits_cpu_decl {
  ggml_from_float_fn from_float; /* quantizes an f32 row into this type (the activation side) */
  ggml_vec_dot_fn vec_dot;       /* this type . vec_dot_type */
  int32_t vec_dot_type;          /* enum ggml_type */
  int64_t nrows;
} ggml_type_traits_cpu_decl;

typedef const ggml_type_traits_decl* (*ggml_get_type_traits_fn)(int32_t type);
typedef const ggml_type_traits_cpu_decl* (*ggml_get_type_traits_cpu_fn)(int32_t type);
typedef const char* (*ggml_type_name_fn)(int32_t type);
typedef const char* (*ggml_version_fn)(void);
typedef void (*ggml_cpu_init_fn)(void);
typedef int (*ggml_backend_score_fn)(void); /* a variant library: 0 = this CPU cannot run it */

/* The quantized types of enum ggml_type (ggml.h) the adapter declares, with the name ggml
 * gives each (ggml_type_name) and its block. The adapter checks name and block against the
 * library before declaring a kernel: a ggml whose enum differs is reported, not gated. */
typedef struct ggml_api_type {
  int32_t id;
  const char* name; /* ggml's name, which is also qgate's format name */
  int32_t blck, type_size;
} ggml_api_type;

#define GGML_API_TYPE_Q8_0 8
#define GGML_API_TYPE_Q8_1 9
#define GGML_API_TYPE_Q8_K 15
#define GGML_API_TYPE_COUNT 43 /* ggml 0.23: every id below it names a type */

static const ggml_api_type ggml_api_types[] = {
    {2, "q4_0", 32, 18},       {3, "q4_1", 32, 20},       {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},
    {8, "q8_0", 32, 34},       {10, "q2_K", 256, 84},     {11, "q3_K", 256, 110},   {12, "q4_K", 256, 144},
    {13, "q5_K", 256, 176},    {14, "q6_K", 256, 210},    {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98},  {19, "iq1_s", 256, 50},    {20, "iq4_nl", 32, 18},   {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},    {23, "iq4_xs", 256, 136},  {29, "iq1_m", 256, 56},   {34, "tq1_0", 256, 54},
    {35, "tq2_0", 256, 66},    {39, "mxfp4", 32, 17},     {40, "nvfp4", 64, 36},    {41, "q1_0", 128, 18},
    {42, "q2_0", 64, 18},
};
#define GGML_API_NTYPES (sizeof ggml_api_types / sizeof ggml_api_types[0])

/* The activation types vec_dot pairs with, and their blocks. */
static const ggml_api_type ggml_api_act_types[] = {
    {8, "q8_0", 32, 34}, {9, "q8_1", 32, 36}, {15, "q8_K", 256, 292}};

#endif /* QGATE_GGML_API_H */
