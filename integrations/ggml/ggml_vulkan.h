/* ggml-vulkan's mul_mat reached through ggml's backend API, as an engine reaches it: the
 * adapter builds a one-node graph (ggml_mul_mat of the weight and the f32 activations),
 * uploads with ggml_backend_tensor_set, runs ggml_backend_graph_compute on a backend of
 * ggml_backend_vk_init and reads the result back (docs/GGML.md, "ggml-vulkan"). */
#ifndef QGATE_GGML_VULKAN_H
#define QGATE_GGML_VULKAN_H

#include <stddef.h>
#include <stdint.h>

/* Opens libggml-vulkan.so in dir pinned to its f32 path (weights dequantized to f32, f32
 * activations, f32 products and sums, for every M) through the switches ggml-vulkan reads when
 * it creates its instance and device: GGML_VK_DISABLE_F16, ..._INTEGER_DOT_PRODUCT,
 * ..._COOPMAT, ..._COOPMAT2 and ..._MMVQ. device: the Vulkan device
 * index to show ggml (GGML_VK_VISIBLE_DEVICES; NULL: ggml's own choice, which leaves out CPU
 * implementations such as lavapipe). Returns NULL, or why ggml-vulkan cannot run here (every
 * Vulkan kernel is then reported skipped with it). Sets *present = 0 when dir has no
 * libggml-vulkan.so (no Vulkan kernels are declared then). */
const char* ggml_vk_open(void* base, const char* dir, const char* device, int* present);
/* The device ggml-vulkan runs on, as its log line describes it ("NVIDIA H200 (NVIDIA) | uma:
 * 0 | fp16: 0 | ..."), after ggml_vk_open succeeded. */
const char* ggml_vk_device_line(void);
/* NULL when ggml-vulkan's backend supports mul_mat of this weight type with f32
 * activations, else why not. */
const char* ggml_vk_unsupported(int32_t type);
/* y (m x n f32, row-major) = x (m x k f32) times the n rows of w (k values each, the type's
 * blocks); y's incoming contents (qgate's poison) are uploaded as ggml's output first, so an
 * element ggml does not write stays poison. repeats > 0 (qgate bench): the graph holds that
 * many mul_mats, each on a copy of w of its own, run once to compile and warm, then again
 * timed: *elapsed_ns receives the wall time of that ggml_backend_graph_compute. Returns 0, or
 * 1 with msg. */
int32_t ggml_vk_mul_mat(int32_t type, const uint8_t* w, size_t w_bytes, const float* x, float* y, int64_t n,
                        int64_t k, int64_t m, int64_t repeats, double* elapsed_ns, char* msg, size_t msg_size);

#endif /* QGATE_GGML_VULKAN_H */
