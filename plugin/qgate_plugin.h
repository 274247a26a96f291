/* qgate plugin ABI: how a shared library declares its kernels to `qgate gate --plugin lib.so`.
 *
 * Pure C (C99), no C++ type crosses the boundary. Two versions live here, each with its own
 * entry symbol and types, both loaded by qgate:
 *
 *   version 2  qgate_plugin_v2_get (QGATE_PLUGIN_V2_ENTRY): one launch signature for every op
 *              and backend (qgate_plugin_v2_call), device memory for CUDA / HIP kernels,
 *              sessions (init / teardown, many launches in one process), configuration
 *              arguments (--plugin-arg KEY=VALUE), the declared math engines use.
 *   version 1  qgate_plugin_get (QGATE_PLUGIN_ENTRY): host pointers, CPU kernels; frozen.
 *
 * qgate looks for the version 2 entry first, then the version 1 entry. It never calls plugin
 * code in its own process: a child process loads the library and reads its table, and one
 * session process per kernel runs all of that kernel's launches, under a watchdog
 * (docs/PLUGINS.md).
 *
 * Versioning rule: what a version defines never changes meaning. Version 1 is frozen. The
 * structs of version 2 start with their size as the plugin (or qgate) built them; fields are
 * only ever appended at their end, and a reader uses a field only when the size covers it.
 * Enum values are only ever appended; a plugin uses only values its header defines (qgate
 * refuses a descriptor with a value it does not know). Anything else is a new version with
 * a new entry symbol.
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
/* Version 2 also launches: */
#define QGATE_OP_GATE_UP 2    /* y[M][N/2] = silu(x W_gate^T) * (x W_up^T), W = [W_gate; W_up] (N rows),
                                 one activation quantization shared by both halves */
#define QGATE_OP_MOE_MATMUL 3 /* indexed MoE: W = `experts` stacked experts of N/experts rows; row
                                 t*top_k + s of y (M*top_k rows of N/experts) = x[t] . W_e^T with
                                 e = ids[t*top_k + s] (int32) */
/* Fusions and attention (f32 tensors, no weight format: the descriptor's format is ignored,
 * NULL allowed). Shapes and tensors are the call's fused fields; the outputs are guarded and
 * poisoned like y. */
#define QGATE_OP_ADD_RMSNORM 4  /* y2 = x + res, y = y2 / sqrt(mean(y2^2) + eps) * norm_w; x, res, y, y2:
                                   rows x cols, norm_w: cols */
#define QGATE_OP_QK_NORM_ROPE 5 /* per head, q and k RMS-normalized over head_dim (w_q, w_k, eps), rotated
                                   by RoPE at position pos[t] (rope_base, rope_mode); q to y
                                   [tokens][n_head][head_dim], k and v written to k_cache / v_cache
                                   [n_head_kv][kv_cap][head_dim] at row pos[t], no other row touched */
#define QGATE_OP_MOE_ROUTE 6    /* router: x = logits rows x cols (cols experts); ids [rows][top_k]
                                   descending probability (equal: lower index first), y = their
                                   softmax weights renormalized over the chosen top_k */
#define QGATE_OP_SILU_MUL 7     /* y = silu(x) * res, rows x cols */
#define QGATE_OP_ATTENTION 8    /* y[t][h] = softmax_j(scale q[t][h] . k_cache[h/g][j] + causal mask)
                                   . v_cache[h/g][j] over kv_len rows, g = n_head / n_head_kv; query t
                                   at position kv_len - tokens + t sees rows j <= it. Declare the
                                   q.k chain in depth (a function of head_dim), the keys per
                                   online-softmax tile in tile_k (1 = eager) and P's type in p_type */

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
  QGATE_ACT_NONE = 0,           /* activations used as f32 */
  QGATE_ACT_Q8_1 = 1,           /* per 32: ggml q8_1; offsets applied with the exact sum of the codes */
  QGATE_ACT_Q8_K = 2,           /* per 256: ggml q8_K */
  QGATE_ACT_FP8_E4M3_TOKEN = 3, /* per row: f32 scale amax/448, e4m3 RNE saturating */
  /* Version 2 only: */
  QGATE_ACT_Q8_0 = 4,           /* per 32: ggml q8_0 (fp16 d, 32 codes, no sum) */
  QGATE_ACT_Q8_1_S16 = 5        /* per 32: ggml q8_1, and the offset or min term of each 32 weights
                                   (q4_0 q4_1 q5_0 q5_1 q4_K q5_K) applied as offset * s with the
                                   block's stored fp16 sum s = fp16(d * sum q), as ggml's dot products do */
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
/* (Version 1's launch. Version 2's is qgate_plugin_v2_launch_fn below.) */

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


/* ===================================== version 2 ===================================== */

#define QGATE_PLUGIN_V2_ABI_VERSION 2u
#define QGATE_PLUGIN_V2_ENTRY "qgate_plugin_v2_get"

/* Configuration: the --plugin-arg KEY=VALUE pairs given with the library, in order. */
typedef struct qgate_plugin_v2_config {
  uint32_t size;           /* sizeof(qgate_plugin_v2_config) as qgate built it */
  uint32_t count;          /* number of pairs */
  const char* const* keys; /* count NUL-terminated strings */
  const char* const* values;
} qgate_plugin_v2_config;

/* One tensor handed to a launch. CPU: `ptr` is host memory. CUDA / HIP: `ptr` is device memory
 * of the session's device (allocated by qgate, cudaMalloc / hipMalloc). Vulkan: `ptr` is NULL;
 * the tensor is bytes [vk_offset, vk_offset + bytes) of the VkBuffer `vk_buffer` (a storage
 * buffer of the session's VkDevice; vk_offset a multiple of 256; the buffer holds at least
 * bytes rounded up to 16 past the offset). */
typedef struct qgate_plugin_v2_tensor {
  void* ptr;
  uint64_t bytes;      /* what the kernel may read (inputs) or must write exactly (the output) */
  uint64_t vk_buffer;  /* VkBuffer (Vulkan only) */
  uint64_t vk_offset;
} qgate_plugin_v2_tensor;

/* The device a session runs its kernel on, as qgate opened it (init and every launch get it). */
typedef struct qgate_plugin_v2_device {
  uint32_t size;   /* sizeof(qgate_plugin_v2_device) as qgate built it */
  int32_t backend; /* qgate_plugin_backend */
  void* stream;    /* CUDA: the cudaStream_t to launch on; HIP: the hipStream_t; else NULL */
  /* Vulkan: the instance, physical device, device and compute queue (VkInstance ... VkQueue),
   * the queue's family, and the loader's vkGetInstanceProcAddr to fetch every other entry
   * point from (the plugin need not link a Vulkan loader). The kernel submits its work to
   * vk_queue itself; qgate waits for the queue to go idle after launch returns. */
  void* vk_instance;
  void* vk_physical_device;
  void* vk_device;
  void* vk_queue;
  uint32_t vk_queue_family;
  void* vk_get_instance_proc_addr;
} qgate_plugin_v2_device;

/* One launch: every op and backend through this one struct. Fields an op does not use are
 * zero. The output `y` sits between guard bytes and is pre-filled with NaN poison; qgate
 * checks both after the launch. */
typedef struct qgate_plugin_v2_call {
  uint32_t size;  /* sizeof(qgate_plugin_v2_call) as qgate built it */
  int32_t op;     /* the descriptor's op */
  int64_t n, k, m;          /* weight rows, columns; activation rows (1 for dequant) */
  qgate_plugin_v2_tensor w; /* the weight, as the format's blocks, row-major (GGUF layout) */
  qgate_plugin_v2_tensor x; /* matmul: m x k f32 activations, row-major; dequant: none */
  qgate_plugin_v2_tensor y; /* n x k (dequant) or m x n (matmul) elements of out_type */
  void* stream;   /* device->stream, for short: CUDA's cudaStream_t to launch on (qgate
                     synchronizes it after the launch returns), HIP's hipStream_t; else NULL */
  void* session;  /* what init stored, or NULL */
  uint64_t launch_index; /* launches of this kernel before this one in this session process */
  const qgate_plugin_v2_device* device;
  qgate_plugin_v2_tensor ids; /* QGATE_OP_MOE_MATMUL: m * top_k int32 expert ids, token-major;
                                 QGATE_OP_MOE_ROUTE: the output ids (guarded, poisoned) */
  int64_t experts, top_k;     /* QGATE_OP_MOE_MATMUL; top_k also QGATE_OP_MOE_ROUTE */
  /* Fusions and attention: shapes, scalars and tensors (see the ops). */
  int64_t rows, cols, tokens, n_head, n_head_kv, head_dim, kv_len, kv_cap;
  float eps, rope_base, scale;
  int32_t rope_mode; /* 0: NeoX pairs (i, i + d/2); 1: interleaved pairs (2i, 2i + 1) */
  qgate_plugin_v2_tensor res, norm_w, q, k_new, v_new, w_q, w_k, pos, k_cache, v_cache, y2;
  /* qgate bench only (elsewhere 0 and NULL; read them only where size covers them): compute y
   * `repeats` times, each from a copy of the weight of its own (so that no repeat finds it in a
   * cache another one filled), and write the wall time of those computations alone (no setup,
   * no transfers, no first-use compilation), in nanoseconds, to *elapsed_ns. y holds the result
   * as usual. A kernel that does not time itself leaves *elapsed_ns negative (qgate sets -1):
   * the bench reports it not benchmarked. */
  int64_t repeats;
  double* elapsed_ns;
} qgate_plugin_v2_call;

/* Runs the kernel once. Returns 0, or an error code of the plugin's choosing with a message
 * (NUL-terminated, truncated to message_size): the case then fails with
 * "kernel returned error <code>: <message>". */
typedef int32_t (*qgate_plugin_v2_launch_fn)(const void* user, const qgate_plugin_v2_call* call, char* message,
                                             size_t message_size);

/* The precision of the f32 builtins a kernel's nonlinear part runs on (gate_up's SiLU, the
 * fusions, attention), in ULPs of the result; a field left 0 means the CPU's (expf 1 ULP,
 * correctly rounded division, sqrt then division, fma, sinf / cosf 1 ULP). */
typedef struct qgate_plugin_v2_math {
  double exp_ulp;        /* exp(x) within exp_ulp + exp_ulp_per_x |x| ULP (CUDA expf: 2; Vulkan: 3, 2) */
  double exp_ulp_per_x;
  double div_ulp;        /* a / b (0.5 = correctly rounded; CUDA's fast division 2; Vulkan 2.5) */
  int32_t rsqrt_roundings;  /* 1/sqrt(v) in roundings of u (0: 2, a CPU sqrt then a division) */
  int32_t rotate_roundings; /* RoPE's a c - b s (0: 2, a product and an fma; 3 without fma) */
  double trig_u;            /* |sin^ - sin|, |cos^ - cos| in u (0: 2, sinf / cosf at 1 ULP) */
} qgate_plugin_v2_math;

typedef struct qgate_plugin_v2_kernel {
  const char* name;   /* unique within qgate's run: [A-Za-z0-9_.-], 1..96 characters */
  int32_t op;         /* QGATE_OP_* */
  const char* format; /* GGUF name of the weight format (qgate list --formats) */
  int32_t backend;    /* qgate_plugin_backend */
  int32_t tile_m, tile_n, tile_k; /* the kernel's tile (>= 1): the generators derive shapes from it */
  int32_t max_m;      /* matmul: the largest M it is meant for (0 = any) */
  qgate_plugin_precision precision; /* activation: any QGATE_ACT_* value */
  /* Nonzero: a rerun of the same case, in the same session after other launches and in a
   * fresh process, must be bit-identical. Zero (atomics, split-K in any order): reruns are
   * not compared, and the declared depth must be the longest rounding chain of any order
   * the kernel may take (the bound covers every such order). */
  int32_t deterministic;
  qgate_plugin_v2_launch_fn launch;
  const void* user;          /* passed back to launch */
  const char* unavailable;   /* NULL, or why this kernel cannot run here (a CPU feature, a
                                library the plugin did not find): reported skipped with it */
  qgate_plugin_v2_math math; /* gate_up and the fusions / attention: the precision of their builtins */
  int32_t p_type;            /* attention: the type of P before P.V (qgate_plugin_out_type) */
  /* Nonzero: a kernel of a device backend that takes host memory, as a CPU kernel does, because
   * it brings its own device (an engine's backend API: it uploads, runs and reads back itself).
   * qgate opens no device for its session (device->backend is QGATE_BACKEND_CPU, the tensors
   * host pointers) and reports and filters it under its declared backend. */
  int32_t host_memory;
  int32_t reserved[6];       /* zero: room for what later ops declare (an array element cannot grow) */
} qgate_plugin_v2_kernel;

/* Optional. Called once in each session process, before its first launch, with the device
 * the session opened for the kernel (on CUDA / HIP it is current): `session` may receive a
 * pointer handed to every launch (qgate_plugin_v2_call::session) and to teardown (build
 * pipelines, tables, workspaces here). Nonzero return: every launch of that session fails
 * with the message. */
typedef int32_t (*qgate_plugin_v2_init_fn)(const qgate_plugin_v2_config* config, const qgate_plugin_v2_device* device,
                                           void** session, char* message, size_t message_size);
/* Optional. Called once when a session process ends normally. */
typedef void (*qgate_plugin_v2_teardown_fn)(void* session);

typedef struct qgate_plugin_v2_library {
  uint32_t size;        /* sizeof(qgate_plugin_v2_library) as the plugin built it */
  uint32_t abi_version; /* QGATE_PLUGIN_V2_ABI_VERSION */
  const qgate_plugin_v2_kernel* kernels;
  size_t count;
  qgate_plugin_v2_init_fn init;         /* may be NULL */
  qgate_plugin_v2_teardown_fn teardown; /* may be NULL */
} qgate_plugin_v2_library;

/* The version 2 entry. qgate passes the version it speaks and the configuration; the plugin
 * returns its library (valid while it is loaded; the same table for the same configuration
 * every time) or NULL with a message, which fails the plugin. */
typedef const qgate_plugin_v2_library* (*qgate_plugin_v2_get_fn)(uint32_t host_abi_version,
                                                                  const qgate_plugin_v2_config* config,
                                                                  char* message, size_t message_size);

#if defined(_WIN32)
#define QGATE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define QGATE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
}
#endif

#endif /* QGATE_PLUGIN_H */
