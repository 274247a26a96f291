// The backend axis: which runtimes exist in this build, and whether each can run here.
// A backend that cannot run is reported skipped with its reason, never passed.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "core/kernel.hpp"

namespace qgate {

struct Availability {
  bool available = false;
  std::string reason;  // why not, or the device that will run
};

Availability probe_backend(BackendId b);
// Every device of a GPU backend this process can see, in the enumeration order whose index
// ctest's resource allocation and QGATE_<BACKEND>_DEVICE select (backends/device_select.hpp);
// empty with why where there is none (and for the CPU, which is not a device resource).
std::vector<std::string> backend_devices(BackendId b, std::string& why);
// The kernel's backend, then the device features the kernel itself needs.
inline Availability probe_kernel(const KernelInfo& k) {
  Availability a = probe_backend(k.backend);
  if (a.available && k.unavailable)
    if (const char* why = k.unavailable(k)) return {false, why};
  return a;
}
// For the result of one kernel's run (a struct with `skipped` and `skip_reason`): marks it
// skipped with the reason where the kernel's backend or device is absent; true = it runs here.
template <class Result>
bool runs_here(const KernelInfo& k, Result& r) {
  const Availability a = probe_kernel(k);
  if (!a.available) r.skipped = true, r.skip_reason = a.reason;
  return a.available;
}
inline constexpr BackendId kAllBackends[] = {BackendId::cpu, BackendId::vulkan, BackendId::cuda, BackendId::hip};

}  // namespace qgate
