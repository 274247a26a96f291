#include "backends/backend.hpp"

#ifdef QGATE_HAVE_VULKAN
#include "backends/vulkan/vk_runtime.hpp"
#endif
#ifdef QGATE_HAVE_CUDA
#include "backends/cuda/cuda_runtime.hpp"
#endif
#ifdef QGATE_HAVE_HIP_RUNTIME
#include "backends/hip/hip_runtime.hpp"
#endif

namespace qgate {

Availability probe_backend(BackendId b) {
  switch (b) {
    case BackendId::cpu: return {true, "host CPU"};
    case BackendId::vulkan: {
#ifdef QGATE_HAVE_VULKAN
      std::string why;
      if (vk::Runtime* rt = vk::Runtime::instance(why)) return {true, rt->info().describe()};
      return {false, why};
#else
      return {false, std::string("not built in this configuration: ") + QGATE_VULKAN_WHY};
#endif
    }
    case BackendId::cuda: {
#ifdef QGATE_HAVE_CUDA
      std::string why;
      if (cu::Runtime* rt = cu::Runtime::instance(why)) return {true, rt->info().describe()};
      return {false, why};
#else
      return {false, std::string("not built in this configuration: ") + QGATE_CUDA_WHY};
#endif
    }
    case BackendId::hip: {
#ifdef QGATE_HAVE_HIP_RUNTIME
      std::string why;
      if (hip::Runtime* rt = hip::Runtime::instance(why)) return {true, rt->info().describe()};
      return {false, why};
#else
      return {false, std::string("not built in this configuration: ") + QGATE_HIP_WHY};
#endif
    }
    default: return {false, "unknown backend"};
  }
}

std::vector<std::string> backend_devices(BackendId b, std::string& why) {
  switch (b) {
#ifdef QGATE_HAVE_VULKAN
    case BackendId::vulkan:
      if (vk::Runtime* rt = vk::Runtime::instance(why)) return rt->info().devices;
      return {};
#endif
#ifdef QGATE_HAVE_CUDA
    case BackendId::cuda:
      if (cu::Runtime* rt = cu::Runtime::instance(why)) return rt->info().devices;
      return {};
#endif
#ifdef QGATE_HAVE_HIP_RUNTIME
    case BackendId::hip:
      if (hip::Runtime* rt = hip::Runtime::instance(why)) return rt->info().devices;
      return {};
#endif
    case BackendId::cpu: why = "the host CPU is not a device resource"; return {};
    default: why = probe_backend(b).reason; return {};
  }
}

}  // namespace qgate
