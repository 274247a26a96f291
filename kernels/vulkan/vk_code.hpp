// What KernelInfo::device_code points to for a Vulkan kernel (registry_vk.cpp fills it,
// launch.cpp reads it): the shader pair and, for a codebook format, the table its shaders
// read from their last storage buffer: the bytes of the oracles' table
// (oracles/formats/iq_tables.hpp), bound as they are: format data is never retyped; for
// the int8 path, the activation quantizer the launch runs before the kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "backends/vulkan/vk_runtime.hpp"

namespace qgate::vkk {

// matvec_q8.comp's weight rows per workgroup (ROWS_PER_WG there): the grids of its launch
// and of the bench.
inline constexpr int64_t kMatvecQ8RowsPerGroup = 2;
// The K the mat-vecs cover in one pass of their loop (declared as the kernels' tile.k, so the
// generators draw K past several passes): matvec.comp's 64 invocations one element apart;
// matvec_q8.comp's 32 invocations per row, STEP 4 chunks of 32 each.
inline constexpr int kMatvecF32SweepK = 64, kMatvecQ8SweepK = 32 * 4 * 32;

struct Code {
  vk::ShaderPair shaders;
  std::span<const std::byte> table;  // empty: the format has none
  vk::ShaderPair quant{};            // int8 path: the activation quantizer run first
  int act_block = 0;                 // its block (32 for q8_1, 256 for q8_K)
  vk::ShaderPair one_row{};          // mat-vec: the same kernel built for one activation row
};

}  // namespace qgate::vkk
