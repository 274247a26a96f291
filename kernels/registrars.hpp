// The parts of the kernel list each backend appends (kernels/registry.cpp and
// kernels/cpu/fused_registry.cpp call them; a backend not built in has none).
#pragma once
#include <vector>

#include "core/kernel.hpp"

namespace qgate {

void add_cpu_moe_kernels(std::vector<KernelInfo>& v);       // kernels/cpu/moe.cpp
void add_vulkan_kernels(std::vector<KernelInfo>& v);        // kernels/vulkan/registry_vk.cpp
void add_vulkan_fused_kernels(std::vector<KernelInfo>& v);  // kernels/vulkan/fused_launch.cpp
void add_cuda_kernels(std::vector<KernelInfo>& v);          // kernels/cuda/registry_cuda.cpp
void add_cuda_gate_up_kernels(std::vector<KernelInfo>& v);  // kernels/cuda/fused_gate_up.cpp
void add_cuda_fused_kernels(std::vector<KernelInfo>& v);    // kernels/cuda/fused_launch.cpp

}  // namespace qgate
