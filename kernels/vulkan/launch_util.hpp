// What every Vulkan launch file needs: an error message that outlives the call, a scoped
// host-visible buffer, a 2-D grid for more than 65535 workgroups, the int8 path's runner
// and its mat-vec dispatches.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/guarded.hpp"
#include "backends/vulkan/vk_runtime.hpp"
#include "core/kernel.hpp"

namespace qgate::vkk {

inline const char* fail(std::string msg) { return launch_failed(std::move(msg)); }

// A host-visible buffer of at least `bytes` (rounded up to words), released on scope exit.
struct Scoped {
  vk::Runtime* rt;
  vk::Buffer b;
  Scoped(vk::Runtime* r, size_t bytes) : rt(r), b(r->alloc((std::max<size_t>(bytes, 4) + 3) / 4 * 4)) {}
  ~Scoped() { rt->release(b); }
  Scoped(const Scoped&) = delete;
  Scoped& operator=(const Scoped&) = delete;
};

// `groups` workgroups as gx * gy with gx <= 65535.
inline void grid(uint64_t groups, uint32_t& gx, uint32_t& gy) {
  gx = static_cast<uint32_t>(std::min<uint64_t>(groups, 65535));
  gy = static_cast<uint32_t>((groups + gx - 1) / (gx ? gx : 1));
  if (gx == 0) gx = gy = 1;
}

// The int8 path (launch.cpp): quantize the activations on the device (the Code's
// quant_act.comp), then the kernel's dispatches, all in one command buffer; the guarded
// output region is mirrored. `dispatches` gets the kernel's shader and buffers (weights,
// codes, scales, code sums per 16, output, then the table if any) and appends its dispatches.
using AddDispatches = std::function<void(const vk::Shader&, const std::vector<vk::Buffer*>&, std::vector<vk::Dispatch>&)>;
const char* run_q8(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out,
                   const vk::Shader* shader, size_t out_slack, const AddDispatches& dispatches);

struct Code;
// The int8 mat-vec's dispatches (matvec_q8.comp, 8 activation rows each; the one-row build
// for a last single row) over n weight rows into binds[4] from word out_word, row stride n.
void matvec_q8_steps(const Code& code, vk::Runtime* rt, int64_t n, int64_t k, int64_t m, uint32_t out_word,
                     const std::vector<vk::Buffer*>& binds, std::vector<vk::Dispatch>& steps,
                     const vk::Shader* every = nullptr);

}  // namespace qgate::vkk
