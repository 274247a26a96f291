// The kernel list: every registered kernel of every backend built in (each backend's
// kernels.inc; the fusions' kernels/fused.inc and the gate+up pairs' kernels/gate_up.inc,
// every backend's rows in one list), as core/kernel.hpp describes them.
#pragma once
#include <span>
#include <string_view>

#include "core/kernel.hpp"

namespace qgate {

std::span<const KernelInfo> all_kernels();
// Fusion and attention kernels (kernels/fused.inc), registered once there.
std::span<const KernelInfo> fused_kernels();
// The kernel of one kernels/fused.inc row: <stem>_<kernel_suffix(b)>, f32 in and out.
KernelInfo fused_kernel(std::string_view stem, BackendId b, Op op, LaunchFn launch, Depth depth, int tile_k, OutType p,
                        const FusedMath& math);
// Searches all_kernels(), then fused_kernels().
const KernelInfo* find_kernel(std::string_view name);

}  // namespace qgate
