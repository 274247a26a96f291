/* Version 2 plugins qgate must refuse or report, for the tests of docs/PLUGINS.md: built three
 * times with a different BROKEN_* definition.
 *   BROKEN_REFUSED: the entry point returns NULL with a message (a library it wraps is missing)
 *   BROKEN_TABLE:   a kernel with a reserved field set, one with an unknown activation value,
 *                   and one the plugin says cannot run here (reported skipped with its reason)
 *   BROKEN_INIT:    init fails: every launch of the kernel fails with its message
 */
#include <stdint.h>
#include <stdio.h>

#include "plugin/qgate_plugin.h"

#if !defined(BROKEN_REFUSED)
static int32_t zeros(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t size) {
  (void)user, (void)msg, (void)size;
  for (int64_t i = 0; i < c->m * c->n; ++i) ((float*)c->y.ptr)[i] = 0.0f;
  return 0;
}
#endif
#define MATVEC(name, act) \
  {name, QGATE_OP_MATMUL, "q8_0", QGATE_BACKEND_CPU, 1, 1, 32, 8, {act, 23, {1, 1, 0}, QGATE_OUT_F32, 0}, 1, zeros, NULL, NULL}

#if defined(BROKEN_REFUSED)
QGATE_PLUGIN_EXPORT const qgate_plugin_v2_library* qgate_plugin_v2_get(uint32_t v, const qgate_plugin_v2_config* cfg,
                                                                       char* msg, size_t size) {
  (void)v, (void)cfg;
  snprintf(msg, size, "libengine.so not found (pass --plugin-arg lib=PATH)");
  return NULL;
}
#elif defined(BROKEN_TABLE)
static qgate_plugin_v2_kernel kKernels[] = {
    MATVEC("broken_v2_reserved_set", QGATE_ACT_NONE),
    MATVEC("broken_v2_unknown_activation", 6),
    MATVEC("broken_v2_unavailable", QGATE_ACT_NONE),
};
static const qgate_plugin_v2_library kLibrary = {sizeof(qgate_plugin_v2_library), QGATE_PLUGIN_V2_ABI_VERSION, kKernels,
                                                 3, NULL, NULL};
QGATE_PLUGIN_EXPORT const qgate_plugin_v2_library* qgate_plugin_v2_get(uint32_t v, const qgate_plugin_v2_config* cfg,
                                                                       char* msg, size_t size) {
  (void)v, (void)cfg, (void)msg, (void)size;
  kKernels[0].reserved[3] = 1;
  kKernels[2].unavailable = "needs AVX-512 VNNI, which this CPU lacks";
  return &kLibrary;
}
#elif defined(BROKEN_INIT)
static int32_t init(const qgate_plugin_v2_config* cfg, const qgate_plugin_v2_device* d, void** session, char* msg,
                    size_t size) {
  (void)cfg, (void)d, (void)session;
  snprintf(msg, size, "no device for the engine");
  return 3;
}
static const qgate_plugin_v2_kernel kKernels[] = {MATVEC("broken_v2_init_fails", QGATE_ACT_NONE)};
static const qgate_plugin_v2_library kLibrary = {sizeof(qgate_plugin_v2_library), QGATE_PLUGIN_V2_ABI_VERSION, kKernels,
                                                 1, init, NULL};
QGATE_PLUGIN_EXPORT const qgate_plugin_v2_library* qgate_plugin_v2_get(uint32_t v, const qgate_plugin_v2_config* cfg,
                                                                       char* msg, size_t size) {
  (void)v, (void)cfg, (void)msg, (void)size;
  return &kLibrary;
}
#else
#error "define BROKEN_REFUSED, BROKEN_TABLE or BROKEN_INIT"
#endif
