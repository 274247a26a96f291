/* Plugins that cannot be gated as they stand, for the tests of docs/PLUGINS.md: built
 * three times with a different BROKEN_* definition.
 *   BROKEN_ABI:    built for an ABI version qgate does not speak (999)
 *   BROKEN_SYMBOL: exports no qgate_plugin_get
 *   BROKEN_TABLE:  one usable kernel, one with an unknown format name, one without a launch
 */
#include <stdint.h>

#include "plugin/qgate_plugin.h"

#if defined(BROKEN_ABI)
QGATE_PLUGIN_EXPORT uint32_t qgate_plugin_get(uint32_t host_abi_version, const qgate_plugin_kernel** kernels,
                                              size_t* count) {
  return 999;
}
#elif defined(BROKEN_SYMBOL)
QGATE_PLUGIN_EXPORT uint32_t qgate_plugin_entry(uint32_t host_abi_version) { return QGATE_PLUGIN_ABI_VERSION; }
#elif defined(BROKEN_TABLE)
static int32_t zeros(const void* user, const uint8_t* w, const float* x, void* y, int64_t n, int64_t k, int64_t m,
                     void* stream, char* msg, size_t msg_size) {
  return 0;
}
static const qgate_plugin_kernel kKernels[] = {
    {"broken_dequant_q4_0_unknown_format", QGATE_OP_DEQUANT, "q4_0_x", QGATE_BACKEND_CPU, 1, 1, 32, 0,
     {QGATE_ACT_NONE, 23, {0, 1, 0}, QGATE_OUT_F32, 0}, 1, zeros, 0},
    {"broken_dequant_q4_0_no_launch", QGATE_OP_DEQUANT, "q4_0", QGATE_BACKEND_CPU, 1, 1, 32, 0,
     {QGATE_ACT_NONE, 23, {0, 1, 0}, QGATE_OUT_F32, 0}, 1, 0, 0},
    {"broken_matvec_q4_0_writes_nothing", QGATE_OP_MATMUL, "q4_0", QGATE_BACKEND_CPU, 1, 1, 32, 8,
     {QGATE_ACT_NONE, 23, {1, 1, 0}, QGATE_OUT_F32, 0}, 1, zeros, 0},
};
QGATE_PLUGIN_EXPORT uint32_t qgate_plugin_get(uint32_t host_abi_version, const qgate_plugin_kernel** kernels,
                                              size_t* count) {
  if (host_abi_version != QGATE_PLUGIN_ABI_VERSION) return QGATE_PLUGIN_ABI_VERSION;
  *kernels = kKernels;
  *count = sizeof kKernels / sizeof kKernels[0];
  return QGATE_PLUGIN_ABI_VERSION;
}
#else
#error "define BROKEN_ABI, BROKEN_SYMBOL or BROKEN_TABLE"
#endif
