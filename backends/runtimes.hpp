// The runtime headers of the GPU backends this build has (QGATE_HAVE_VULKAN, QGATE_HAVE_CUDA,
// QGATE_HAVE_HIP_RUNTIME), for the code that opens whichever is there.
#pragma once
#ifdef QGATE_HAVE_VULKAN
#include "backends/vulkan/vk_runtime.hpp"
#endif
#ifdef QGATE_HAVE_CUDA
#include "backends/cuda/cuda_runtime.hpp"
#endif
#ifdef QGATE_HAVE_HIP_RUNTIME
#include "backends/hip/hip_runtime.hpp"
#endif
