// What KernelInfo::device_code points to for a Vulkan kernel (registry_vk.cpp fills it,
// launch.cpp reads it): the shader pair and, for a codebook format, the table its shaders
// read from their last storage buffer: the bytes of the oracles' table
// (oracles/formats/iq_tables.hpp), bound as they are: format data is never retyped.
#pragma once
#include <cstddef>
#include <span>

#include "backends/vulkan/vk_runtime.hpp"

namespace qgate::vkk {

struct Code {
  vk::ShaderPair shaders;
  std::span<const std::byte> table;  // empty: the format has none
};

}  // namespace qgate::vkk
