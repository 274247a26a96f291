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

/* ggml.h, ggml-alloc.h, ggml-backend.h: building and running a one-node graph on a backend.
 * The structs are opaque here; ggml_init_params is passed by value as ggml.h declares it. */
struct ggml_context;
struct ggml_tensor;
struct ggml_cgraph;
typedef struct ggml_backend* ggml_backend_t;
typedef struct ggml_backend_buffer* ggml_backend_buffer_t;
typedef struct ggml_init_params_decl {
  size_t mem_size;
  void* mem_buffer;
  bool no_alloc;
} ggml_init_params_decl;
typedef struct ggml_context* (*ggml_init_fn)(ggml_init_params_decl params);
typedef void (*ggml_free_fn)(struct ggml_context* ctx);
typedef size_t (*ggml_overhead_fn)(void); /* ggml_tensor_overhead, ggml_graph_overhead */
typedef struct ggml_tensor* (*ggml_new_tensor_1d_fn)(struct ggml_context* ctx, int32_t type, int64_t ne0);
typedef struct ggml_tensor* (*ggml_new_tensor_2d_fn)(struct ggml_context* ctx, int32_t type, int64_t ne0, int64_t ne1);
/* a: [ne0 = K, ne1 = N] (the weight, row-major rows of K), b: [K, M] -> [N, M] f32 */
typedef struct ggml_tensor* (*ggml_mul_mat_fn)(struct ggml_context* ctx, struct ggml_tensor* a, struct ggml_tensor* b);
typedef struct ggml_cgraph* (*ggml_new_graph_fn)(struct ggml_context* ctx);
typedef void (*ggml_build_forward_expand_fn)(struct ggml_cgraph* graph, struct ggml_tensor* t);
typedef ggml_backend_buffer_t (*ggml_backend_alloc_ctx_tensors_fn)(struct ggml_context* ctx, ggml_backend_t backend);
typedef void (*ggml_backend_tensor_set_fn)(struct ggml_tensor* t, const void* data, size_t offset, size_t size);
typedef void (*ggml_backend_tensor_get_fn)(const struct ggml_tensor* t, void* data, size_t offset, size_t size);
typedef int32_t (*ggml_backend_graph_compute_fn)(ggml_backend_t backend, struct ggml_cgraph* graph); /* 0 = success */
typedef bool (*ggml_backend_supports_op_fn)(ggml_backend_t backend, const struct ggml_tensor* op);
typedef void (*ggml_backend_buffer_free_fn)(ggml_backend_buffer_t buffer);
typedef void (*ggml_backend_free_fn)(ggml_backend_t backend);
/* ggml.h: where ggml's log lines go (level: enum ggml_log_level). */
typedef void (*ggml_log_callback_fn)(int32_t level, const char* text, void* user);
typedef void (*ggml_log_set_fn)(ggml_log_callback_fn callback, void* user);
/* ggml-vulkan.h (libggml-vulkan.so) */
typedef ggml_backend_t (*ggml_backend_vk_init_fn)(size_t dev_num);
typedef int (*ggml_backend_vk_get_device_count_fn)(void);
typedef void (*ggml_backend_vk_get_device_description_fn)(int device, char* description, size_t size);

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
#define GGML_API_TYPE_F32 0
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
