// The kernel list: every registered kernel of every backend built in (each backend's
// kernels.inc, the fusions' fused.inc), as core/kernel.hpp describes them.
#pragma once
#include <span>
#include <string_view>

#include "core/kernel.hpp"

namespace qgate {

std::span<const KernelInfo> all_kernels();
// Fusion and attention kernels (kernels/cpu/fused.inc), registered once there.
std::span<const KernelInfo> fused_kernels();
// Searches all_kernels(), then fused_kernels().
const KernelInfo* find_kernel(std::string_view name);

}  // namespace qgate
