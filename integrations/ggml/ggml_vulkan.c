/* ggml-vulkan's mul_mat through ggml's backend API (ggml_vulkan.h). */
#include "integrations/ggml/ggml_vulkan.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "integrations/ggml/ggml_api.h"

static struct {
  void* lib;
  ggml_backend_t backend;
  char line[320]; /* ggml-vulkan's description of device 0 as it logs it */
  char log[2048]; /* what ggml logged while opening (the reason when it fails) */
  size_t log_len;
  ggml_init_fn init;
  ggml_free_fn free_ctx;
  ggml_overhead_fn tensor_overhead, graph_overhead;
  ggml_new_tensor_1d_fn new_1d;
  ggml_new_tensor_2d_fn new_2d;
  ggml_mul_mat_fn mul_mat;
  ggml_new_graph_fn new_graph;
  ggml_build_forward_expand_fn expand;
  ggml_backend_alloc_ctx_tensors_fn alloc;
  ggml_backend_tensor_set_fn set;
  ggml_backend_tensor_get_fn get;
  ggml_backend_graph_compute_fn compute;
  ggml_backend_supports_op_fn supports;
  ggml_backend_buffer_free_fn buffer_free;
  char why[1024];
} V;

static void keep_log(int32_t level, const char* text, void* user) {
  (void)level, (void)user;
  const size_t n = strlen(text), room = sizeof V.log - 1 - V.log_len;
  memcpy(V.log + V.log_len, text, n < room ? n : room);
  V.log_len += n < room ? n : room;
  V.log[V.log_len] = 0;
}

/* ggml-vulkan logs one line per device: "ggml_vulkan: 0 = NAME (DRIVER) | uma: 0 | fp16: 0 |
 * ... | int dot: 1 | matrix cores: none". The line of device 0 (the first shown to ggml). */
static void find_line(void) {
  const char* p = strstr(V.log, "ggml_vulkan: 0 = ");
  if (!p) return;
  p += strlen("ggml_vulkan: 0 = ");
  const size_t n = strcspn(p, "\n");
  snprintf(V.line, sizeof V.line, "%.*s", (int)n, p);
}

/* ggml-vulkan throws a C++ exception, which ends the process, where Vulkan cannot open (no
 * driver: vk::IncompatibleDriverError from its instance). Opening it first in a forked child
 * keeps the adapter alive to report every Vulkan kernel skipped with the child's last words.
 * Returns NULL when the child opened device 0 (or found no device, which the caller reports). */
static const char* open_in_child(ggml_backend_vk_get_device_count_fn count, ggml_backend_vk_init_fn vk_init) {
  int fds[2];
  if (pipe(fds) != 0) return NULL;
  fflush(NULL);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return NULL;
  }
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 1), dup2(fds[1], 2);
    setenv("GGML_NO_BACKTRACE", "1", 1); /* no debugger attached to print the stack */
    _exit(count() > 0 && !vk_init(0) ? 3 : 0);
  }
  close(fds[1]);
  /* What the child printed, its last 2 KiB kept: the reason comes last. */
  char out[4096], chunk[2048];
  size_t len = 0;
  ssize_t got;
  while ((got = read(fds[0], chunk, sizeof chunk)) > 0) {
    if (len + (size_t)got >= sizeof out) {
      const size_t keep = len < sizeof chunk ? len : sizeof chunk;
      memmove(out, out + len - keep, keep);
      len = keep;
    }
    memcpy(out + len, chunk, (size_t)got);
    len += (size_t)got;
  }
  out[len] = 0;
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) return NULL;
  /* The line that says why: an exception's "what():  vk::createInstance: ErrorIncompatibleDriver",
   * else a failed GGML_ASSERT, else the last line printed (ggml lists the devices first, so
   * the first line says nothing). */
  const char* what = strstr(out, "what():");
  const char* assert_line = strstr(out, "GGML_ASSERT");
  const char* reason = out;
  if (what) {
    reason = what + strlen("what():");
  } else if (assert_line) {
    while (assert_line > out && assert_line[-1] != '\n') --assert_line;
    reason = assert_line;
  } else {
    size_t end = len;
    while (end > 0 && (out[end - 1] == '\n' || out[end - 1] == ' ')) --end;
    size_t start = end;
    while (start > 0 && out[start - 1] != '\n') --start;
    reason = out + start;
  }
  while (*reason == ' ') ++reason;
  snprintf(V.why, sizeof V.why, "ggml-vulkan could not open a Vulkan device (%s %d): %.*s",
           WIFSIGNALED(status) ? "signal" : "exit status", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
           (int)strcspn(reason, "\n"), reason);
  return V.why;
}

#define LOOKUP(lib, field, name)                                                         \
  do {                                                                                   \
    *(void**)(&V.field) = dlsym(lib, name);                                              \
    if (!V.field) {                                                                      \
      snprintf(V.why, sizeof V.why, "%s lacks %s (not the ggml backend API of 0.23)", #lib, name); \
      return V.why;                                                                      \
    }                                                                                    \
  } while (0)

const char* ggml_vk_open(void* base, const char* dir, const char* device, int* present) {
  char file[1024];
  snprintf(file, sizeof file, "%s/libggml-vulkan.so", dir);
  FILE* f = fopen(file, "rb");
  *present = f != NULL;
  if (!f) return "no libggml-vulkan.so in the folder";
  fclose(f);
  /* ggml-vulkan reads its switches when it creates its instance and device: set before the
   * first call. They leave the f32 path, the arithmetic declared (docs/GGML.md). */
  setenv("GGML_VK_DISABLE_F16", "1", 1);
  setenv("GGML_VK_DISABLE_COOPMAT", "1", 1);
  setenv("GGML_VK_DISABLE_COOPMAT2", "1", 1);
  setenv("GGML_VK_DISABLE_INTEGER_DOT_PRODUCT", "1", 1);
  setenv("GGML_VK_DISABLE_MMVQ", "1", 1);
  unsetenv("GGML_VK_FORCE_MMVQ");
  if (device) setenv("GGML_VK_VISIBLE_DEVICES", device, 1);
  V.lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!V.lib) {
    snprintf(V.why, sizeof V.why, "libggml-vulkan.so does not load: %s", dlerror());
    return V.why;
  }
  ggml_backend_vk_get_device_count_fn count = NULL;
  ggml_backend_vk_init_fn vk_init = NULL;
  ggml_log_set_fn log_set = NULL;
  *(void**)(&count) = dlsym(V.lib, "ggml_backend_vk_get_device_count");
  *(void**)(&vk_init) = dlsym(V.lib, "ggml_backend_vk_init");
  *(void**)(&log_set) = dlsym(base, "ggml_log_set");
  if (!count || !vk_init || !log_set) return "libggml-vulkan.so lacks ggml_backend_vk_init or its device count";
  LOOKUP(base, init, "ggml_init");
  LOOKUP(base, free_ctx, "ggml_free");
  LOOKUP(base, tensor_overhead, "ggml_tensor_overhead");
  LOOKUP(base, graph_overhead, "ggml_graph_overhead");
  LOOKUP(base, new_1d, "ggml_new_tensor_1d");
  LOOKUP(base, new_2d, "ggml_new_tensor_2d");
  LOOKUP(base, mul_mat, "ggml_mul_mat");
  LOOKUP(base, new_graph, "ggml_new_graph");
  LOOKUP(base, expand, "ggml_build_forward_expand");
  LOOKUP(base, alloc, "ggml_backend_alloc_ctx_tensors");
  LOOKUP(base, set, "ggml_backend_tensor_set");
  LOOKUP(base, get, "ggml_backend_tensor_get");
  LOOKUP(base, compute, "ggml_backend_graph_compute");
  LOOKUP(base, supports, "ggml_backend_supports_op");
  LOOKUP(base, buffer_free, "ggml_backend_buffer_free");
  /* ggml's log goes to a buffer while the device opens: the device line says what the path
   * runs on, and a failure's reason is in it. */
  if (open_in_child(count, vk_init)) return V.why;
  log_set(keep_log, NULL);
  const int devices = count();
  if (devices > 0) V.backend = vk_init(0);
  log_set(NULL, NULL);
  find_line();
  if (devices <= 0) {
    snprintf(V.why, sizeof V.why, "ggml-vulkan finds no Vulkan device%s", device ? " at that index" :
             " (it leaves CPU implementations such as lavapipe out unless --plugin-arg vk_device=N names one)");
    return V.why;
  }
  if (!V.backend) {
    snprintf(V.why, sizeof V.why, "ggml_backend_vk_init(0) failed: %.900s", V.log);
    return V.why;
  }
  return NULL;
}

const char* ggml_vk_device_line(void) { return V.line; }

/* A context holding `copies` weights w[i] [k, n] of type, x [k, m] f32, `nodes` products
 * y[j] = mul_mat(w[j % copies], x) and a guard tensor after them (allocated in that order), and
 * its graph. One copy and one node but in benchmarks (ggml_vk_mul_mat's repeats). */
enum { MAX_COPIES = 1024, MIN_TIMED_NODES = 16 };

typedef struct graph {
  struct ggml_context* ctx;
  struct ggml_tensor *w[MAX_COPIES], *x, *y[MAX_COPIES], *guard;
  struct ggml_cgraph* g;
} graph;

enum { GUARD_FLOATS = 64 };

static int make_graph(graph* gr, int32_t type, int64_t n, int64_t k, int64_t m, int copies, int nodes) {
  ggml_init_params_decl p = {V.tensor_overhead() * (size_t)(copies + nodes + 8) + V.graph_overhead() + 4096, NULL,
                             true};
  gr->ctx = V.init(p);
  if (!gr->ctx) return 0;
  gr->x = V.new_2d(gr->ctx, GGML_API_TYPE_F32, k, m);
  for (int i = 0; i < copies; ++i) gr->w[i] = V.new_2d(gr->ctx, type, k, n);
  for (int j = 0; j < nodes; ++j) gr->y[j] = V.mul_mat(gr->ctx, gr->w[j % copies], gr->x);
  gr->guard = V.new_1d(gr->ctx, GGML_API_TYPE_F32, GUARD_FLOATS);
  gr->g = V.new_graph(gr->ctx);
  for (int j = 0; j < nodes; ++j) V.expand(gr->g, gr->y[j]);
  return 1;
}

const char* ggml_vk_unsupported(int32_t type) {
  graph gr;
  if (!make_graph(&gr, type, 4, 256, 2, 1, 1)) return "ggml_init failed";
  const int ok = V.supports(V.backend, gr.y[0]);
  V.free_ctx(gr.ctx);
  return ok ? NULL : "ggml-vulkan's backend does not support mul_mat of this type (ggml_backend_supports_op)";
}

static int32_t fail(char* msg, size_t n, const char* why) {
  snprintf(msg, n, "%s", why);
  return 1;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int32_t ggml_vk_mul_mat(int32_t type, const uint8_t* w, size_t w_bytes, const float* x, float* y, int64_t n,
                        int64_t k, int64_t m, int64_t repeats, double* elapsed_ns, char* msg, size_t msg_size) {
  if (!V.backend) return fail(msg, msg_size, "ggml-vulkan is not open");
  if (repeats > MAX_COPIES) return fail(msg, msg_size, "more repeats than the adapter keeps weight copies (1024)");
  /* A benchmark times at least MIN_TIMED_NODES products in one graph, the weight copies taken
   * in turn, so that one submission and fence wait are spread over them as in a decode graph;
   * the time is scaled to `repeats` products. */
  const int copies = repeats > 1 ? (int)repeats : 1;
  const int nodes = repeats > 0 && copies < MIN_TIMED_NODES ? MIN_TIMED_NODES : copies;
  graph gr;
  if (!make_graph(&gr, type, n, k, m, copies, nodes)) return fail(msg, msg_size, "ggml_init failed");
  ggml_backend_buffer_t buf = V.alloc(gr.ctx, V.backend);
  if (!buf) {
    V.free_ctx(gr.ctx);
    return fail(msg, msg_size, "ggml_backend_alloc_ctx_tensors failed (device memory)");
  }
  /* The guard after ggml's outputs: a pattern that must survive the run. */
  float guard[GUARD_FLOATS], back[GUARD_FLOATS];
  memset(guard, 0xA5, sizeof guard);
  const size_t y_bytes = (size_t)(n * m) * sizeof(float);
  for (int i = 0; i < copies; ++i) {
    V.set(gr.w[i], w, 0, w_bytes);
    V.set(gr.y[i], y, 0, y_bytes);
  }
  V.set(gr.x, x, 0, (size_t)(k * m) * sizeof(float));
  V.set(gr.guard, guard, 0, sizeof guard);
  int32_t status = V.compute(V.backend, gr.g);
  if (status == 0 && repeats > 0 && elapsed_ns) { /* timed again, its pipelines compiled and warm */
    const double t0 = now_ns();
    status = V.compute(V.backend, gr.g);
    *elapsed_ns = (now_ns() - t0) * copies / nodes;
  }
  int32_t rc = 0;
  if (status != 0) {
    snprintf(msg, msg_size, "ggml_backend_graph_compute returned status %d", (int)status);
    rc = 1;
  } else {
    V.get(gr.y[0], y, 0, y_bytes);
    V.get(gr.guard, back, 0, sizeof back);
    if (memcmp(guard, back, sizeof guard) != 0)
      rc = fail(msg, msg_size, "ggml's mul_mat wrote into the tensor allocated after its output");
  }
  V.buffer_free(buf);
  V.free_ctx(gr.ctx);
  return rc;
}
