// The Vulkan runtime: one instance and device per process (ctest's resource allocation or
// QGATE_VULKAN_DEVICE picks one by index or name substring: backends/device_select.hpp;
// the choice is printed), host-visible storage buffers, and
// compute dispatch of SPIR-V compiled from GLSL at build time and embedded in the binary.
// No device, no loader, no compute queue: instance() returns nullptr and says why.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qgate::vk {

struct DeviceInfo {
  std::string name;
  int index = -1;                   // into devices (backends/device_select.hpp picks it)
  std::vector<std::string> devices; // every Vulkan device, in enumeration order
  uint32_t api_version = 0;
  uint32_t subgroup_size = 0;
  bool int_dot = false;             // shaderIntegerDotProduct enabled (VK_KHR_shader_integer_dot_product)
  bool int8_dot = false;            // ... and its 4x8-bit packed signed form is accelerated
  bool float64 = false;             // shaderFloat64 enabled
  bool denorm_preserve_f32 = false; // shaderDenormPreserveFloat32
  std::string describe() const;
};

// SPIR-V embedded at build time (kernels/vulkan/*.comp via glslc).
struct Shader {
  const char* name;
  const uint32_t* words;
  size_t word_count;
  uint32_t bindings;     // storage buffers 0..bindings-1
  uint32_t push_bytes;   // push-constant block size
};
// kernels/vulkan/shaders.cmake lays each shader out in assembly: two pointers, a word
// count, two 32-bit fields.
static_assert(sizeof(Shader) == 32 && offsetof(Shader, words) == 8 && offsetof(Shader, word_count) == 16 &&
                  offsetof(Shader, bindings) == 24 && offsetof(Shader, push_bytes) == 28,
              "the Shader layout the generated assembly writes");

// A shader built twice: as is, and declaring DenormPreserve 32 (only for devices with
// shaderDenormPreserveFloat32). pick() chooses for this device.
struct ShaderPair {
  const Shader* plain;
  const Shader* denorm_preserve;
};

struct Buffer {
  void* handle = nullptr;  // opaque: VkBuffer + memory + mapping live in the runtime
  void* map = nullptr;     // host-visible, coherent (null for device-local buffers)
  size_t bytes = 0;
};

// One compute dispatch of a recording: shader, buffers, push-constant bytes, grid.
struct Dispatch {
  const Shader* shader = nullptr;
  std::vector<Buffer*> bindings;
  std::vector<uint8_t> push;
  uint32_t gx = 1, gy = 1, gz = 1;
};
struct Recording;  // a recorded command buffer (opaque)

class Runtime {
 public:
  struct Impl;
  static Runtime* instance(std::string& why_not);
  const DeviceInfo& info() const { return info_; }
  const Shader& pick(const ShaderPair& p) const { return info_.denorm_preserve_f32 ? *p.denorm_preserve : *p.plain; }
  Buffer alloc(size_t bytes);
  // Device-local memory (what benchmarks read: no host mapping); filled by upload().
  Buffer alloc_device(size_t bytes);
  std::string upload(Buffer& dst, const void* src, size_t bytes);
  void release(Buffer& b);
  // Record a chain of dispatches into one command buffer (memory barriers between them):
  // push constants and descriptors are baked at recording time, exactly as a replayed
  // command buffer bakes them. Submit waits; release frees (also after an error).
  // timed: a timestamp after each dispatch (and one before the first), read back by
  // timestamps() after submit: the device time of each dispatch in ns.
  // Timing::independent (benchmarks of dispatches that do not read each other's output):
  // no barriers between the dispatches and two timestamps, before the first and after the
  // last; timestamps() then gives one value, the time of the whole chain.
  enum class Timing { none, each, independent };
  std::string record(std::span<const Dispatch> steps, Recording*& out, Timing timing);
  std::string record(std::span<const Dispatch> steps, Recording*& out, bool timed = false) {
    return record(steps, out, timed ? Timing::each : Timing::none);
  }
  std::string submit(Recording* rec);
  std::string timestamps(Recording* rec, std::vector<double>& ns_per_dispatch);
  // The compiler's statistics of the shader's pipeline (VK_KHR_pipeline_executable_properties:
  // registers, spills, shared memory...), "name=value, ..."; or why there are none.
  std::string shader_stats(const Shader& s);
  void release(Recording* rec);
  // The raw handles, for kernels qgate did not compile (plugins record and submit their own
  // work to queue; wait_idle() then waits for it). Opaque pointers: callers need no Vulkan header.
  struct Handles {
    void* instance = nullptr;         // VkInstance
    void* physical_device = nullptr;  // VkPhysicalDevice
    void* device = nullptr;           // VkDevice
    void* queue = nullptr;            // VkQueue (compute)
    uint32_t queue_family = 0;
    void* get_instance_proc_addr = nullptr;  // PFN_vkGetInstanceProcAddr
  };
  Handles handles() const;
  static uint64_t buffer_handle(const Buffer& b);  // the VkBuffer, as a 64-bit handle
  std::string wait_idle();  // "" or why the queue failed
  // Records, submits and waits; returns "" or an error message.
  std::string dispatch(const Shader& s, std::span<Buffer* const> bindings, const void* push, uint32_t gx,
                       uint32_t gy = 1, uint32_t gz = 1);
  ~Runtime();

 private:
  Runtime() = default;
  Impl* impl_ = nullptr;
  DeviceInfo info_;
  friend struct RuntimeBuilder;
};

}  // namespace qgate::vk
