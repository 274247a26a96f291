#include "backends/backend.hpp"

#include "backends/runtimes.hpp"

namespace qgate {

namespace {
// A GPU backend's runtime opened (once per process), or why not.
template <class Runtime>
Availability runtime_availability() {
  std::string why;
  if (Runtime* rt = Runtime::instance(why)) return {true, rt->info().describe()};
  return {false, why};
}
[[maybe_unused]] Availability not_built(const char* why) { return {false, std::string("not built in this configuration: ") + why}; }
}  // namespace

Availability probe_backend(BackendId b) {
  switch (b) {
    case BackendId::cpu: return {true, "host CPU"};
#ifdef QGATE_HAVE_VULKAN
    case BackendId::vulkan: return runtime_availability<vk::Runtime>();
#else
    case BackendId::vulkan: return not_built(QGATE_VULKAN_WHY);
#endif
#ifdef QGATE_HAVE_CUDA
    case BackendId::cuda: return runtime_availability<cu::Runtime>();
#else
    case BackendId::cuda: return not_built(QGATE_CUDA_WHY);
#endif
#ifdef QGATE_HAVE_HIP_RUNTIME
    case BackendId::hip: return runtime_availability<hip::Runtime>();
#else
    case BackendId::hip: return not_built(QGATE_HIP_WHY);
#endif
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
