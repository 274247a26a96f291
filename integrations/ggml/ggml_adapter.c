/* The ggml adapter: a qgate plugin (ABI version 2) that declares ggml's own kernels, as a
 * shipped ggml build has them, so that `qgate gate --plugin` gates them (docs/GGML.md).
 *
 *   --plugin-arg dir=FOLDER       the folder holding libggml-base.so and libggml-cpu-<arch>.so or
 *                                 libggml-cpu.so (required; e.g. build/ggml/linux-x64 after
 *                                 ci/setup-ggml.sh)
 *   --plugin-arg variants=A,B     only these CPU variant libraries (default: every one found;
 *                                 empty: none)
 *   --plugin-arg types=A,B        only these quantized types (default: all)
 *   --plugin-arg vulkan=0         leaves ggml-vulkan's kernels out (default: declared when the
 *                                 folder has libggml-vulkan.so)
 *   --plugin-arg vk_device=N      the Vulkan device ggml-vulkan runs on (lavapipe needs it)
 *   --plugin-arg plant=1          adds ggml_<arch>_vec_dot_q4_0_q8_0_planted per variant and
 *                                 ggml_vulkan_mul_mat_q4_0_f32_planted: ggml's own q4_0 kernel,
 *                                 handed a weight whose last row carries the scales of the row
 *                                 before it (the gate must reject it)
 *
 * Kernels:
 *   ggml_dequant_<type>               ggml_get_type_traits(type)->to_float (libggml-base.so), f32
 *   ggml_<arch>_vec_dot_<type>_<act>  matmul: each activation row quantized by the variant's
 *                                     from_float of vec_dot_type <act>, then one vec_dot per
 *                                     output, as ggml's CPU mul_mat does for one thread
 *   ggml_vulkan_mul_mat_<type>_f32    matmul: ggml-vulkan's mul_mat on its f32 path through
 *                                     ggml's backend API (ggml_vulkan.h; declared math at
 *                                     declare_vk)
 *
 * The declared math (docs/GGML.md says where each part comes from):
 *   activation  q8_0 -> QGATE_ACT_Q8_0; q8_1 (q4_1, q5_1) -> QGATE_ACT_Q8_1_S16, the block's
 *               stored fp16 sum times the weight's min; q8_K -> QGATE_ACT_Q8_K
 *   depth       {1, g, 8}: one f32 accumulation per scale group g (16 for nvfp4's sub-blocks,
 *               32 for the other q8_0 / q8_1 types, 256 for the q8_K ones: the integer sums
 *               inside a group are exact), then at most 8 roundings to fold SIMD lanes and
 *               partial accumulators into the result
 *   deterministic: one thread, fixed order
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrations/ggml/ggml_api.h"
#include "integrations/ggml/ggml_vulkan.h"
#include "plugin/qgate_plugin.h"

#define MAX_VARIANTS 32

typedef struct variant {
  char name[48];
  char error[256]; /* dlerror() where the library did not load */
  void* lib;
  int score;
  ggml_get_type_traits_cpu_fn traits;
} variant;

enum { DEQUANT, VEC_DOT, VK_MUL_MAT };

typedef struct kernel_user {
  int kind, planted;
  int32_t type, blck, type_size, act_blck, act_size;
  ggml_to_float_fn to_float;
  ggml_vec_dot_fn vec_dot;
  ggml_from_float_fn from_float;
} kernel_user;

static struct {
  int built;
  char error[1600];
  void* base;
  variant variants[MAX_VARIANTS];
  int nvariants;
  qgate_plugin_v2_kernel* kernels;
  kernel_user* users;
  char (*names)[96];
  char (*reasons)[320];
  size_t count;
  qgate_plugin_v2_library library;
} G;

static const char* config_value(const qgate_plugin_v2_config* c, const char* key) {
  const char* v = NULL;
  for (uint32_t i = 0; c && i < c->count; ++i)
    if (strcmp(c->keys[i], key) == 0) v = c->values[i];
  return v;
}

static int listed(const char* list, const char* name) {
  if (!list) return 1;
  const size_t n = strlen(name);
  for (const char* p = list; *p;) {
    const char* e = strchr(p, ',');
    const size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

static int by_name(const void* a, const void* b) {
  return strcmp(((const variant*)a)->name, ((const variant*)b)->name);
}

static const char* const known[] = {"x64",        "sse42",    "sandybridge", "ivybridge",   "piledriver",
                                    "haswell",    "skylakex", "cannonlake",  "cascadelake", "icelake",
                                    "cooperlake", "zen4",     "alderlake",   "sapphirerapids", "cpu"};
#define NKNOWN (sizeof known / sizeof known[0])

/* The first name in the comma list that is not a known variant, copied to buf, or NULL. */
static int is_variant(const char* p, size_t len) {
  for (size_t i = 0; i < NKNOWN; ++i)
    if (strlen(known[i]) == len && strncmp(known[i], p, len) == 0) return 1;
  return 0;
}

static int is_type(const char* p, size_t len) {
  for (size_t i = 0; i < GGML_API_NTYPES; ++i)
    if (strlen(ggml_api_types[i].name) == len && strncmp(ggml_api_types[i].name, p, len) == 0) return 1;
  return 0;
}

/* The first item of a comma-separated list that is_known rejects (copied to buf), or NULL. */
static const char* unknown_item(const char* list, int (*is_known)(const char*, size_t), char* buf, size_t n) {
  for (const char* p = list; p && *p;) {
    const char* e = strchr(p, ',');
    const size_t len = e ? (size_t)(e - p) : strlen(p);
    if (!is_known(p, len)) {
      snprintf(buf, n, "%.*s", (int)len, p);
      return buf;
    }
    p = e ? e + 1 : NULL;
  }
  return NULL;
}

/* Every libggml-cpu-<arch>.so in dir (the list a shipped build carries), and libggml-cpu.so of
 * a build without GGML_BACKEND_DL (variant "cpu"), sorted by name. */
static void find_variants(const char* dir, const char* only) {
  for (size_t i = 0; i < NKNOWN && G.nvariants < MAX_VARIANTS; ++i) {
    if (!listed(only, known[i])) continue;
    const int plain = strcmp(known[i], "cpu") == 0;
    char path[1024];
    if (plain) snprintf(path, sizeof path, "%s/libggml-cpu.so", dir);
    else snprintf(path, sizeof path, "%s/libggml-cpu-%s.so", dir, known[i]);
    FILE* f = fopen(path, "rb");
    if (!f) continue;
    fclose(f);
    variant* v = &G.variants[G.nvariants++];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", known[i]);
    /* ggml's own loader opens every variant and asks it for its score; so does this. A
     * variant that cannot run here answers 0 and none of its code runs. */
    v->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!v->lib) {
      snprintf(v->error, sizeof v->error, "%s", dlerror());
      continue;
    }
    /* A variant library says whether this CPU can run it; the plain library of a build
     * without GGML_BACKEND_DL has no score and was built for the machine it runs on. */
    ggml_backend_score_fn score = (ggml_backend_score_fn)dlsym(v->lib, "ggml_backend_score");
    v->score = score ? score() : plain ? 1 : 0;
    v->traits = (ggml_get_type_traits_cpu_fn)dlsym(v->lib, "ggml_get_type_traits_cpu");
    ggml_cpu_init_fn init = (ggml_cpu_init_fn)dlsym(v->lib, "ggml_cpu_init");
    if (v->score > 0 && init) init();
  }
  qsort(G.variants, (size_t)G.nvariants, sizeof G.variants[0], by_name);
}

static const ggml_api_type* act_type(int32_t id) {
  for (size_t i = 0; i < sizeof ggml_api_act_types / sizeof ggml_api_act_types[0]; ++i)
    if (ggml_api_act_types[i].id == id) return &ggml_api_act_types[i];
  return NULL;
}

/* Why the library's type `t` is not the one the adapter declares, or NULL. */
static const char* type_mismatch(const ggml_api_type* t, const ggml_type_traits_decl* tr, char* buf, size_t n) {
  if (!tr || !tr->type_name) {
    snprintf(buf, n, "ggml type %d has no traits in this library", t->id);
    return buf;
  }
  if (strcmp(tr->type_name, t->name) != 0 || tr->blck_size != t->blck || (int64_t)tr->type_size != t->type_size) {
    snprintf(buf, n, "ggml type %d is '%s' (%lld values in %zu bytes) in this library, not %s (%d in %d): "
             "another ggml_type enum than ggml 0.23's", t->id, tr->type_name, (long long)tr->blck_size,
             tr->type_size, t->name, t->blck, t->type_size);
    return buf;
  }
  return NULL;
}

static int32_t launch(const void* user, const qgate_plugin_v2_call* call, char* msg, size_t msg_size);

/* A kernel of weight type t: op and kind (DEQUANT, VEC_DOT); the rest is declared by the caller. */
static qgate_plugin_v2_kernel* add_kernel(const char* name, int32_t op, int kind, const ggml_api_type* t) {
  const size_t i = G.count++;
  qgate_plugin_v2_kernel* k = &G.kernels[i];
  memset(k, 0, sizeof *k);
  snprintf(G.names[i], sizeof G.names[i], "%s", name);
  k->name = G.names[i];
  k->backend = QGATE_BACKEND_CPU;
  k->tile_m = k->tile_n = 1;
  k->precision.acc_fraction_bits = 23;
  k->precision.out_type = QGATE_OUT_F32;
  k->deterministic = 1;
  k->launch = launch;
  k->user = &G.users[i];
  memset(&G.users[i], 0, sizeof G.users[i]);
  k->op = op;
  k->format = t->name;
  k->tile_k = t->blck;
  G.users[i].kind = kind;
  G.users[i].type = t->id;
  G.users[i].blck = t->blck;
  G.users[i].type_size = t->type_size;
  return k;
}

static int set_reason(qgate_plugin_v2_kernel* k, const char* why) {
  const size_t i = (size_t)(k - G.kernels);
  snprintf(G.reasons[i], sizeof G.reasons[i], "%s", why);
  k->unavailable = G.reasons[i];
  return 0;
}

static int declare_vec_dot(const variant* v, const ggml_api_type* t, const char* mismatch, int planted) {
  const ggml_type_traits_cpu_decl* tc = (!mismatch && v->score > 0 && v->traits) ? v->traits(t->id) : NULL;
  const ggml_api_type* act = tc ? act_type(tc->vec_dot_type) : NULL;
  const ggml_type_traits_cpu_decl* ta = act ? v->traits(act->id) : NULL;
  char name[96], why[320];
  snprintf(name, sizeof name, "ggml_%s_vec_dot_%s_%s%s", v->name, t->name, act ? act->name : "q8",
           planted ? "_planted" : "");
  qgate_plugin_v2_kernel* k = add_kernel(name, QGATE_OP_MATMUL, VEC_DOT, t);
  kernel_user* u = (kernel_user*)k->user;
  u->planted = planted;
  if (mismatch) return set_reason(k, mismatch);
  if (!v->lib) {
    snprintf(why, sizeof why, "the variant library does not load: %s", v->error);
    return set_reason(k, why);
  }
  if (v->score <= 0) {
    snprintf(why, sizeof why, "this CPU lacks what libggml-cpu-%s.so needs (its ggml_backend_score() is 0)", v->name);
    return set_reason(k, why);
  }
  if (!tc || !tc->vec_dot || !act || !ta || !ta->from_float) {
    snprintf(why, sizeof why, "libggml-cpu-%s.so has no vec_dot for %s with a quantized activation type", v->name,
             t->name);
    return set_reason(k, why);
  }
  u->vec_dot = tc->vec_dot;
  u->from_float = ta->from_float;
  u->act_blck = act->blck;
  u->act_size = act->type_size;
  if (tc->nrows != 1) {
    snprintf(why, sizeof why, "vec_dot of %s does %lld rows at once here (an ARM int8 matmul path the adapter does "
             "not call yet)", t->name, (long long)tc->nrows);
    return set_reason(k, why);
  }
  k->precision.activation = act->id == GGML_API_TYPE_Q8_0   ? QGATE_ACT_Q8_0
                            : act->id == GGML_API_TYPE_Q8_1 ? QGATE_ACT_Q8_1_S16
                                                            : QGATE_ACT_Q8_K;
  k->precision.depth.a = 1;
  k->precision.depth.b = strcmp(t->name, "nvfp4") == 0 ? 16 : act->blck;
  k->precision.depth.c = 8;
  return 1;
}

/* ggml-vulkan's mul_mat of weight type t on its f32 path (vk_why: NULL, or why it cannot run
 * here). The declared math, from what ggml-vulkan's f32 shaders do: the weight dequantized to
 * f32, the activations as given, f32 products and sums. The mat-vec shaders split K over a
 * workgroup's threads and reduce the partial sums in a tree, the tiled shader runs one
 * sequential sum per output (split-K partials added in order): no element of either sees more
 * than K + 8 roundings (the dequantization, the product and the reduction tree), depth {1, 1, 8}. */
static int declare_vk(const ggml_api_type* t, const char* mismatch, const char* vk_why, int planted) {
  char name[96];
  snprintf(name, sizeof name, "ggml_vulkan_mul_mat_%s_f32%s", t->name, planted ? "_planted" : "");
  qgate_plugin_v2_kernel* k = add_kernel(name, QGATE_OP_MATMUL, VK_MUL_MAT, t);
  ((kernel_user*)k->user)->planted = planted;
  k->backend = QGATE_BACKEND_VULKAN;
  k->host_memory = 1;
  k->precision.activation = QGATE_ACT_NONE;
  k->precision.depth.a = 1;
  k->precision.depth.b = 1;
  k->precision.depth.c = 8;
  if (mismatch) return set_reason(k, mismatch);
  if (vk_why) return set_reason(k, vk_why);
  const char* unsupported = ggml_vk_unsupported(t->id);
  return unsupported ? set_reason(k, unsupported) : 1;
}

static const qgate_plugin_v2_library* build(const qgate_plugin_v2_config* config) {
  const char* dir = config_value(config, "dir");
  if (!dir) {
    snprintf(G.error, sizeof G.error, "no ggml folder: pass --plugin-arg dir=FOLDER (the folder holding "
             "libggml-base.so and libggml-cpu-<arch>.so)");
    return NULL;
  }
  char bad[64];
  if (unknown_item(config_value(config, "variants"), is_variant, bad, sizeof bad)) {
    snprintf(G.error, sizeof G.error, "unknown CPU variant '%s' in variants= (known: x64, sse42, sandybridge, "
             "ivybridge, piledriver, haswell, skylakex, cannonlake, cascadelake, icelake, cooperlake, zen4, "
             "alderlake, sapphirerapids, cpu)", bad);
    return NULL;
  }
  const char* types = config_value(config, "types");
  if (unknown_item(types, is_type, bad, sizeof bad)) {
    char known[512] = "";
    for (size_t i = 0; i < GGML_API_NTYPES; ++i)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", ggml_api_types[i].name);
    snprintf(G.error, sizeof G.error, "unknown ggml type '%s' in types= (known: %s)", bad, known);
    return NULL;
  }
  const char* vk_device = config_value(config, "vk_device");
  if (vk_device && (!*vk_device || strspn(vk_device, "0123456789") != strlen(vk_device) || strlen(vk_device) > 4)) {
    snprintf(G.error, sizeof G.error, "vk_device=%s: a Vulkan device index (0, 1, ...)", vk_device);
    return NULL;
  }
  const char* vulkan = config_value(config, "vulkan");
  if (vulkan && strcmp(vulkan, "0") != 0 && strcmp(vulkan, "1") != 0) {
    snprintf(G.error, sizeof G.error, "vulkan=%s: 1 declares ggml-vulkan's kernels (the default), 0 leaves them out", vulkan);
    return NULL;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/libggml-base.so", dir);
  G.base = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!G.base) {
    snprintf(G.error, sizeof G.error, "cannot open %s: %s", path, dlerror());
    return NULL;
  }
  ggml_get_type_traits_fn traits = (ggml_get_type_traits_fn)dlsym(G.base, "ggml_get_type_traits");
  ggml_version_fn version = (ggml_version_fn)dlsym(G.base, "ggml_version");
  if (!traits || !version) {
    snprintf(G.error, sizeof G.error, "%s lacks ggml_get_type_traits or ggml_version", path);
    return NULL;
  }
  /* ggml_get_type_traits reads past its table for an id at or beyond the library's type
   * count: the ids 40..42 are read only from a ggml at least as new as 0.23. */
  int major = 0, minor = 0;
  sscanf(version(), "%d.%d", &major, &minor);
  const int has_all = major > 0 || minor >= 23;
  find_variants(dir, config_value(config, "variants"));
  const int plant = config_value(config, "plant") && strcmp(config_value(config, "plant"), "1") == 0;
  int vk_present = 0;
  const char* vk_why = NULL;
  if (!(vulkan && strcmp(vulkan, "0") == 0)) vk_why = ggml_vk_open(G.base, dir, vk_device, &vk_present);

  const size_t cap = GGML_API_NTYPES * (size_t)(G.nvariants + 2) + (size_t)G.nvariants + 1;
  G.kernels = calloc(cap, sizeof *G.kernels);
  G.users = calloc(cap, sizeof *G.users);
  G.names = calloc(cap, sizeof *G.names);
  G.reasons = calloc(cap, sizeof *G.reasons);
  if (!G.kernels || !G.users || !G.names || !G.reasons) {
    snprintf(G.error, sizeof G.error, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < GGML_API_NTYPES; ++i) {
    const ggml_api_type* t = &ggml_api_types[i];
    if (!listed(types, t->name)) continue;
    char buf[256];
    const char* mismatch = NULL;
    if (t->id >= 40 && !has_all) {
      snprintf(buf, sizeof buf, "%s is read only from ggml >= 0.23 (this library is %s)", t->name, version());
      mismatch = buf;
    } else {
      mismatch = type_mismatch(t, traits(t->id), buf, sizeof buf);
    }
    char name[96];
    snprintf(name, sizeof name, "ggml_dequant_%s", t->name);
    qgate_plugin_v2_kernel* k = add_kernel(name, QGATE_OP_DEQUANT, DEQUANT, t);
    kernel_user* u = (kernel_user*)k->user;
    if (mismatch) set_reason(k, mismatch);
    else if (!(u->to_float = traits(t->id)->to_float)) set_reason(k, "ggml has no to_float for it");
    for (int v = 0; v < G.nvariants; ++v) declare_vec_dot(&G.variants[v], t, mismatch, 0);
    if (vk_present) declare_vk(t, mismatch, vk_why, 0);
  }
  if (plant) {
    for (int v = 0; v < G.nvariants; ++v) declare_vec_dot(&G.variants[v], &ggml_api_types[0], NULL, 1);
    if (vk_present) declare_vk(&ggml_api_types[0], NULL, vk_why, 1);
  }
  if (G.count == 0) {
    snprintf(G.error, sizeof G.error, "no kernels: types= and variants= leave nothing to declare");
    return NULL;
  }
  G.library.size = sizeof G.library;
  G.library.abi_version = QGATE_PLUGIN_V2_ABI_VERSION;
  G.library.kernels = G.kernels;
  G.library.count = G.count;
  return &G.library;
}

static int32_t fail(char* msg, size_t n, const char* why) {
  snprintf(msg, n, "%s", why);
  return 1;
}

/* The planted defect: the last row of the weight carries the block scales of the row before
 * it (q4_0: the fp16 d at the start of each block). */
static const uint8_t* plant_scales(const kernel_user* u, const uint8_t* w, int64_t n, int64_t k, uint8_t** copy) {
  const int64_t row = k / u->blck * u->type_size;
  *copy = malloc((size_t)(row * n));
  if (!*copy) return NULL;
  memcpy(*copy, w, (size_t)(row * n));
  if (n >= 2)
    for (int64_t b = 0; b < k / u->blck; ++b)
      memcpy(*copy + (n - 1) * row + b * u->type_size, *copy + (n - 2) * row + b * u->type_size, 2);
  return *copy;
}

static int32_t launch(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t msg_size) {
  const kernel_user* u = (const kernel_user*)user;
  if (c->k % u->blck != 0) return fail(msg, msg_size, "k is not a multiple of the block");
  const uint8_t* w = (const uint8_t*)c->w.ptr;
  const int64_t wrow = c->k / u->blck * u->type_size;
  float* y = (float*)c->y.ptr;
  if (u->kind == DEQUANT) {
    for (int64_t r = 0; r < c->n; ++r) u->to_float(w + r * wrow, y + r * c->k, c->k);
    return 0;
  }
  if (c->k > 0x7fffffff) return fail(msg, msg_size, "k does not fit vec_dot's int");
  uint8_t* copy = NULL;
  if (u->planted && !(w = plant_scales(u, w, c->n, c->k, &copy))) return fail(msg, msg_size, "out of memory");
  if (u->kind == VK_MUL_MAT) {
    /* qgate bench's repeats, where the call is new enough to carry them */
    const int benched = c->size >= offsetof(qgate_plugin_v2_call, elapsed_ns) + sizeof c->elapsed_ns && c->repeats > 0;
    const int32_t rc = ggml_vk_mul_mat(u->type, w, (size_t)(wrow * c->n), (const float*)c->x.ptr, y, c->n, c->k,
                                       c->m, benched ? c->repeats : 0, benched ? c->elapsed_ns : NULL, msg, msg_size);
    free(copy);
    return rc;
  }
  void* act = malloc((size_t)(c->k / u->act_blck * u->act_size));
  if (!act) {
    free(copy);
    return fail(msg, msg_size, "out of memory");
  }
  const float* x = (const float*)c->x.ptr;
  for (int64_t m = 0; m < c->m; ++m) {
    u->from_float(x + m * c->k, act, c->k);
    for (int64_t r = 0; r < c->n; ++r) u->vec_dot((int)c->k, y + m * c->n + r, 0, w + r * wrow, 0, act, 0, 1);
  }
  free(act);
  free(copy);
  return 0;
}

QGATE_PLUGIN_EXPORT const qgate_plugin_v2_library* qgate_plugin_v2_get(uint32_t host_abi_version,
                                                                       const qgate_plugin_v2_config* config, char* msg,
                                                                       size_t n) {
  if (host_abi_version != QGATE_PLUGIN_V2_ABI_VERSION) {
    snprintf(msg, n, "built for ABI version 2");
    return NULL;
  }
  if (!G.built) {
    G.built = 1;
    if (!build(config)) G.library.count = 0, G.library.kernels = NULL;
  }
  if (!G.library.kernels) {
    snprintf(msg, n, "%s", G.error);
    return NULL;
  }
  return &G.library;
}
