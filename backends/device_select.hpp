// Which device of a backend this process runs kernels on, chosen the same way for CUDA,
// Vulkan and HIP out of the backend's devices in enumeration order:
//   1. CTest's resource allocation (ctest --resource-spec-file FILE, the spec written by
//      `qgate list --devices --ctest-resource-spec`): a test entry with RESOURCE_GROUPS
//      "<type>:1" gets CTEST_RESOURCE_GROUP_<g>_<TYPE> = "id:N,slots:1", N an index here;
//   2. QGATE_<TYPE>_DEVICE: an index, or a part of a device's name;
//   3. device 0.
// type is the resource type: "cuda", "vulkan" or "hip".
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace qgate {

// The index into names, or -1 with why naming the variable, its value and every device.
int pick_device(std::string_view type, const std::vector<std::string>& names, std::string& why);

// "0: NAME, 1: NAME" for messages.
std::string device_list_text(const std::vector<std::string>& names);

// A backend's runtime, one per process: built by Builder::build(why) on first use (on the
// device pick_device chose) and kept for the process lifetime; nullptr with why_not saying
// why there is none.
template <class Builder>
auto* process_runtime(std::string& why_not) {
  static std::string why;
  static auto* rt = Builder::build(why);
  why_not = why;
  return rt;
}

}  // namespace qgate
