/* qgate plugin ABI: how a shared library declares its kernels to `qgate gate --plugin lib.so`.
 *
 * Pure C (C99), no C++ type crosses the boundary. The library exports one function,
 * qgate_plugin_get (QGATE_PLUGIN_ENTRY names it), which hands qgate a table of kernel
 * descriptors. qgate never calls plugin code in its own process: it loads the library in
 * a child process, once to read the table and once per launch, under a watchdog
 * (docs/PLUGINS.md).
 *
 * Versioning rule: QGATE_PLUGIN_ABI_VERSION changes whenever the layout or meaning of
 * anything in this header changes (a field, an enum value, a signature). There is no
 * minor version: qgate accepts a plugin only when the plugin was built for exactly the
 * version qgate speaks, and reports any other as a failure of that plugin. Enum values
 * are only ever appended; a plugin must not use values its header does not define.
 */
#ifndef QGATE_PLUGIN_H
#define QGATE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QGATE_PLUGIN_ABI_VERSION 1u
#define QGATE_PLUGIN_ENTRY "qgate_plugin_get"

/* The operation a kernel performs on a quantized weight of N rows x K columns. */
typedef enum qgate_plugin_op {
  QGATE_OP_DEQUANT = 0, /* y[N][K] = the weight's values, in out_type */
  QGATE_OP_MATMUL = 1   /* y[M][N] = x[M][K] . W^T (x: f32, row-major), in out_type */
} qgate_plugin_op;

/* Where the kernel runs. ABI version 1 launches with host pointers; qgate reports kernels
 * of the other backends skipped with the reason until it hands device memory. */
typedef enum qgate_plugin_backend {
  QGATE_BACKEND_CPU = 0,
  QGATE_BACKEND_VULKAN = 1,
  QGATE_BACKEND_CUDA = 2,
  QGATE_BACKEND_HIP = 3
} qgate_plugin_backend;

/* How a matmul kernel quantizes its f32 activations before the dot product (part of the
 * declared math: the oracle emulates it exactly). See oracles/ops/precision.hpp. */
typedef enum qgate_plugin_act_quant {
  QGATE_ACT_NONE = 0,          /* activations used as f32 */
  QGATE_ACT_Q8_1 = 1,          /* per 32: ggml q8_1 */
  QGATE_ACT_Q8_K = 2,          /* per 256: ggml q8_K */
  QGATE_ACT_FP8_E4M3_TOKEN = 3 /* per row: f32 scale amax/448, e4m3 RNE saturating */
} qgate_plugin_act_quant;

typedef enum qgate_plugin_out_type {
  QGATE_OUT_F32 = 0,
  QGATE_OUT_F16 = 1,
  QGATE_OUT_BF16 = 2
} qgate_plugin_out_type;

/* The longest chain of roundings any term of an output element goes through, as a
 * function of K:  depth(K) = a * ceil(K / b) + c.  Examples: one sequential f32 sum over
 * K: {1, 1, 0}; a sum of 32 products per block, then a sequential sum of the block terms:
 * {1, 32, 32}. Required for matmul (b >= 1); ignored for dequant. */
typedef struct qgate_plugin_depth {
  int64_t a, b, c;
} qgate_plugin_depth;

typedef struct qgate_plugin_precision {
  int32_t activation;        /* qgate_plugin_act_quant (matmul; QGATE_ACT_NONE for dequant) */
  int32_t acc_fraction_bits; /* accumulator: 23 = f32, 10 = f16, 52 = f64 (1..52) */
  qgate_plugin_depth depth;  /* matmul only */
  int32_t out_type;          /* qgate_plugin_out_type */
  int32_t flush_denormals;   /* nonzero: f32 denormals may be flushed to zero (bound gains 2^-126 terms) */
} qgate_plugin_precision;

/* Runs the kernel once. Pointers are device pointers of the kernel's backend (host
 * memory for QGATE_BACKEND_CPU):
 *   w:  the weight, as the format's blocks, row-major (N rows of K/block_elems blocks; the
 *       GGUF layout of the format named in the descriptor);
 *   x:  matmul: M x K f32 activations, row-major; dequant: NULL;
 *   y:  the output, N x K (dequant) or M x N (matmul) elements of out_type, row-major.
 *       Write exactly these elements: qgate surrounds y with guard bytes and pre-fills it
 *       with NaN poison, and checks both.
 *   n, k, m: the shapes (m = 1 for dequant);
 *   stream: the backend's stream or queue (NULL on the CPU);
 *   user: the descriptor's user pointer, unchanged.
 * Returns 0 on success. Otherwise an error code of the plugin's choosing, with a message
 * (NUL-terminated, truncated to message_size) in `message`; the output then counts as not
 * produced and the case fails with "kernel returned error <code>: <message>". */
typedef int32_t (*qgate_plugin_launch_fn)(const void* user, const uint8_t* w, const float* x, void* y, int64_t n,
                                          int64_t k, int64_t m, void* stream, char* message, size_t message_size);

/* One kernel. Strings are NUL-terminated and must stay valid while the library is loaded. */
typedef struct qgate_plugin_kernel {
  const char* name;   /* unique within qgate's run: [A-Za-z0-9_.-], 1..96 characters */
  int32_t op;         /* qgate_plugin_op */
  const char* format; /* the weight format by its GGUF name: "q4_0", "q8_0", "q4_K", ... (qgate list --formats) */
  int32_t backend;    /* qgate_plugin_backend */
  int32_t tile_m, tile_n, tile_k; /* the kernel's tile (>= 1): the generators derive ragged shapes from it */
  int32_t max_m;      /* matmul: the largest M it is meant for (0 = any); decode kernels say 8 */
  qgate_plugin_precision precision;
  int32_t deterministic; /* nonzero: a second run must be bit-identical (checked) */
  qgate_plugin_launch_fn launch;
  const void* user;      /* passed back to launch */
} qgate_plugin_kernel;

/* The one symbol a plugin exports. qgate passes the ABI version it speaks. The plugin
 * returns the version it was built for (QGATE_PLUGIN_ABI_VERSION of its header) and, only
 * when the two are equal, sets *kernels to its table and *count to its length. qgate
 * refuses the plugin when the returned version differs from its own. It may be called
 * many times (in fresh processes); it must return the same table every time. */
typedef uint32_t (*qgate_plugin_get_fn)(uint32_t host_abi_version, const qgate_plugin_kernel** kernels, size_t* count);

#if defined(_WIN32)
#define QGATE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define QGATE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
}
#endif

#endif /* QGATE_PLUGIN_H */
