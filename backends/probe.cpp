#include "backends/backend.hpp"

namespace qgate {

Availability probe_backend(BackendId b) {
  switch (b) {
    case BackendId::cpu: return {true, "host CPU"};
    case BackendId::vulkan:
      return {false, "not built in this configuration: no Vulkan runtime in this build yet (issue: Vulkan backend)"};
    case BackendId::cuda:
      return {false, "not built in this configuration: no CUDA runtime in this build yet (issue: CUDA backend)"};
    case BackendId::hip:
      return {false, "not built in this configuration: no HIP runtime in this build yet (issue: HIP backend)"};
    default: return {false, "unknown backend"};
  }
}

}  // namespace qgate
