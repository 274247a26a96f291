#include "backends/vulkan/vk_runtime.hpp"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"  // Vulkan structs: {sType} then zero

#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/device_select.hpp"

namespace qgate::vk {

std::string DeviceInfo::describe() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s, Vulkan %u.%u, subgroup %u, int8 dot %s, f64 %s, f32 denormals %s", name.c_str(),
                VK_API_VERSION_MAJOR(api_version), VK_API_VERSION_MINOR(api_version), subgroup_size,
                int8_dot ? "accelerated" : int_dot ? "supported (not accelerated)" : "no", float64 ? "yes" : "no",
                denorm_preserve_f32 ? "preserved" : "may flush");
  return buf;
}

namespace {
struct BufferImpl {
  VkBuffer buf = VK_NULL_HANDLE;
  VkDeviceMemory mem = VK_NULL_HANDLE;
};
struct Pipeline {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipe = VK_NULL_HANDLE;
};
std::string vkerr(const char* what, VkResult r) { return std::string(what) + " failed (VkResult " + std::to_string(r) + ")"; }
}  // namespace

struct Runtime::Impl {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice phys = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkDescriptorPool dpool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  uint32_t host_mem_type = UINT32_MAX;
  uint32_t device_mem_type = UINT32_MAX;
  double timestamp_ns = 0;  // ns per tick; 0: the compute queue has no timestamps
  bool stats = false;       // VK_KHR_pipeline_executable_properties enabled
  std::map<const uint32_t*, Pipeline> pipelines;
  std::mutex mu;
};

struct RuntimeBuilder {
  static Runtime* build(std::string& why) {
    auto rt = std::unique_ptr<Runtime>(new Runtime());
    rt->impl_ = new Runtime::Impl();
    Runtime::Impl& I = *rt->impl_;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "qgate";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    if (VkResult r = vkCreateInstance(&ici, nullptr, &I.instance); r != VK_SUCCESS) {
      why = "no Vulkan instance (" + vkerr("vkCreateInstance", r) + "; is a Vulkan driver installed?)";
      return nullptr;
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(I.instance, &n, nullptr);
    if (n == 0) {
      why = "no Vulkan device (the loader found no driver: install mesa-vulkan-drivers for lavapipe)";
      return nullptr;
    }
    std::vector<VkPhysicalDevice> devs(n);
    vkEnumeratePhysicalDevices(I.instance, &n, devs.data());
    std::vector<std::string> names;
    for (VkPhysicalDevice d : devs) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      names.emplace_back(p.deviceName);
    }
    const int chosen = pick_device("vulkan", names, why);
    if (chosen < 0) return nullptr;
    rt->info_.index = chosen;
    rt->info_.devices = names;
    I.phys = devs[chosen];
    uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(I.phys, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> qf(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(I.phys, &qn, qf.data());
    I.queue_family = UINT32_MAX;
    for (uint32_t i = 0; i < qn; ++i)
      if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) { I.queue_family = i; break; }
    if (I.queue_family == UINT32_MAX) {
      why = "the Vulkan device has no compute queue";
      return nullptr;
    }
    // Device facts the gate reports (and kernels may depend on).
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(I.phys, &props);
    VkPhysicalDeviceSubgroupProperties sg{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceFloatControlsProperties fc{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    sg.pNext = &fc;
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &sg;
    vkGetPhysicalDeviceProperties2(I.phys, &p2);
    rt->info_.name = props.deviceName;
    rt->info_.api_version = props.apiVersion;
    rt->info_.subgroup_size = sg.subgroupSize;
    rt->info_.denorm_preserve_f32 = fc.shaderDenormPreserveFloat32;
    uint32_t en = 0;
    vkEnumerateDeviceExtensionProperties(I.phys, nullptr, &en, nullptr);
    std::vector<VkExtensionProperties> exts(en);
    vkEnumerateDeviceExtensionProperties(I.phys, nullptr, &en, exts.data());
    bool dot_ext = false, stats_ext = false;
    for (const auto& e : exts) {
      if (std::strcmp(e.extensionName, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME) == 0) dot_ext = true;
      if (std::strcmp(e.extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0) stats_ext = true;
    }
    // Features the kernels use where the device has them: f64 (the int8 path's activation
    // quantizer) and packed int8 dot products (the vkdot kernels).
    VkPhysicalDeviceShaderIntegerDotProductFeatures dotf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
    // ... and, for the benchmarks, the compiler's statistics of each pipeline (registers, spills).
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pef{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    if (dot_ext) f2.pNext = &dotf;
    if (stats_ext) {
      pef.pNext = f2.pNext;
      f2.pNext = &pef;
    }
    vkGetPhysicalDeviceFeatures2(I.phys, &f2);
    I.stats = stats_ext && pef.pipelineExecutableInfo;
    rt->info_.float64 = f2.features.shaderFloat64;
    rt->info_.int_dot = dot_ext && dotf.shaderIntegerDotProduct;
    if (rt->info_.int_dot) {
      VkPhysicalDeviceShaderIntegerDotProductProperties dp{
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES};
      VkPhysicalDeviceProperties2 q{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
      q.pNext = &dp;
      vkGetPhysicalDeviceProperties2(I.phys, &q);
      rt->info_.int8_dot = dp.integerDotProduct4x8BitPackedSignedAccelerated;
    }

    const float prio = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = I.queue_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkPhysicalDeviceFeatures2 feats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    feats.features.shaderFloat64 = rt->info_.float64;
    VkPhysicalDeviceShaderIntegerDotProductFeatures want_dot{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
    want_dot.shaderIntegerDotProduct = VK_TRUE;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR want_stats{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    want_stats.pipelineExecutableInfo = VK_TRUE;
    std::vector<const char*> dev_exts;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &feats;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    if (rt->info_.int_dot) {
      want_dot.pNext = feats.pNext;
      feats.pNext = &want_dot;
      dev_exts.push_back(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
    }
    if (I.stats) {
      want_stats.pNext = feats.pNext;
      feats.pNext = &want_stats;
      dev_exts.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    }
    dci.enabledExtensionCount = static_cast<uint32_t>(dev_exts.size());
    dci.ppEnabledExtensionNames = dev_exts.data();
    if (VkResult r = vkCreateDevice(I.phys, &dci, nullptr, &I.device); r != VK_SUCCESS) {
      why = vkerr("vkCreateDevice", r);
      return nullptr;
    }
    vkGetDeviceQueue(I.device, I.queue_family, 0, &I.queue);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(I.phys, &mp);
    const VkMemoryPropertyFlags need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      if ((mp.memoryTypes[i].propertyFlags & need) == need) { I.host_mem_type = i; break; }
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      if (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) { I.device_mem_type = i; break; }
    if (I.device_mem_type == UINT32_MAX) I.device_mem_type = I.host_mem_type;
    if (qf[I.queue_family].timestampValidBits > 0) I.timestamp_ns = props.limits.timestampPeriod;
    if (I.host_mem_type == UINT32_MAX) {
      why = "the Vulkan device has no host-visible coherent memory";
      return nullptr;
    }
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpi.queueFamilyIndex = I.queue_family;
    vkCreateCommandPool(I.device, &cpi, nullptr, &I.pool);
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8192};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dpi.maxSets = 1024;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
    vkCreateDescriptorPool(I.device, &dpi, nullptr, &I.dpool);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vkCreateFence(I.device, &fci, nullptr, &I.fence);
    return rt.release();
  }
};

Runtime* Runtime::instance(std::string& why_not) { return process_runtime<RuntimeBuilder>(why_not); }

Runtime::~Runtime() = default;  // process-lifetime singleton; the driver reclaims at exit

static Buffer alloc_in(Runtime::Impl& I, size_t bytes, uint32_t mem_type, bool mapped, VkBufferUsageFlags extra) {
  auto* b = new BufferImpl();
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes ? bytes : 4;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | extra;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vkCreateBuffer(I.device, &bci, nullptr, &b->buf);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(I.device, b->buf, &req);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = mem_type;
  Buffer out;
  if (vkAllocateMemory(I.device, &mai, nullptr, &b->mem) != VK_SUCCESS) {
    vkDestroyBuffer(I.device, b->buf, nullptr);
    delete b;
    return out;
  }
  vkBindBufferMemory(I.device, b->buf, b->mem, 0);
  if (mapped) vkMapMemory(I.device, b->mem, 0, VK_WHOLE_SIZE, 0, &out.map);
  out.handle = b;
  out.bytes = bytes;
  return out;
}

Runtime::Handles Runtime::handles() const {
  Handles h;
  h.instance = impl_->instance;
  h.physical_device = impl_->phys;
  h.device = impl_->device;
  h.queue = impl_->queue;
  h.queue_family = impl_->queue_family;
  h.get_instance_proc_addr = reinterpret_cast<void*>(&vkGetInstanceProcAddr);
  return h;
}

uint64_t Runtime::buffer_handle(const Buffer& b) {
  return b.handle ? reinterpret_cast<uint64_t>(static_cast<BufferImpl*>(b.handle)->buf) : 0;
}

std::string Runtime::wait_idle() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (VkResult r = vkQueueWaitIdle(impl_->queue); r != VK_SUCCESS) return vkerr("vkQueueWaitIdle", r);
  return {};
}

Buffer Runtime::alloc(size_t bytes) {
  return alloc_in(*impl_, bytes, impl_->host_mem_type, true, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
}

Buffer Runtime::alloc_device(size_t bytes) {
  return alloc_in(*impl_, bytes, impl_->device_mem_type, false, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
}

std::string Runtime::upload(Buffer& dst, const void* src, size_t bytes) {
  if (!dst.handle || bytes > dst.bytes) return "upload: no buffer, or too small";
  Buffer staging = alloc(bytes);
  if (!staging.map) return "upload: staging allocation failed";
  std::memcpy(staging.map, src, bytes);
  Impl& I = *impl_;
  std::string err;
  {
    std::lock_guard<std::mutex> lock(I.mu);
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = I.pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VkCommandBuffer cb;
    vkAllocateCommandBuffers(I.device, &cai, &cb);
    VkCommandBufferBeginInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cb, &cbi);
    VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cb, static_cast<BufferImpl*>(staging.handle)->buf, static_cast<BufferImpl*>(dst.handle)->buf, 1, &region);
    vkEndCommandBuffer(cb);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    vkResetFences(I.device, 1, &I.fence);
    if (VkResult r = vkQueueSubmit(I.queue, 1, &si, I.fence); r != VK_SUCCESS) err = vkerr("vkQueueSubmit", r);
    else if (VkResult w = vkWaitForFences(I.device, 1, &I.fence, VK_TRUE, 60ull * 1000 * 1000 * 1000); w != VK_SUCCESS)
      err = vkerr("vkWaitForFences", w);
    vkFreeCommandBuffers(I.device, I.pool, 1, &cb);
  }
  release(staging);
  return err;
}

void Runtime::release(Buffer& b) {
  if (!b.handle) return;
  auto* x = static_cast<BufferImpl*>(b.handle);
  if (b.map) vkUnmapMemory(impl_->device, x->mem);
  vkDestroyBuffer(impl_->device, x->buf, nullptr);
  vkFreeMemory(impl_->device, x->mem, nullptr);
  delete x;
  b = Buffer{};
}

// The pipeline for a shader, created on first use and kept.
static std::string pipeline_for(Runtime::Impl& I, const Shader& s, Pipeline*& out) {
  Pipeline& p = I.pipelines[s.words];
  out = &p;
  if (p.pipe != VK_NULL_HANDLE) return {};
  VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smi.codeSize = s.word_count * 4;
  smi.pCode = s.words;
  if (VkResult r = vkCreateShaderModule(I.device, &smi, nullptr, &p.module); r != VK_SUCCESS)
    return std::string(s.name) + ": " + vkerr("vkCreateShaderModule", r);
  std::vector<VkDescriptorSetLayoutBinding> lb(s.bindings);
  for (uint32_t i = 0; i < s.bindings; ++i)
    lb[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dli.bindingCount = s.bindings;
  dli.pBindings = lb.data();
  vkCreateDescriptorSetLayout(I.device, &dli, nullptr, &p.dsl);
  VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, s.push_bytes};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &p.dsl;
  pli.pushConstantRangeCount = s.push_bytes ? 1 : 0;
  pli.pPushConstantRanges = &pcr;
  vkCreatePipelineLayout(I.device, &pli, nullptr, &p.layout);
  VkComputePipelineCreateInfo cpi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, p.module,
               "main", nullptr};
  cpi.layout = p.layout;
  if (I.stats) cpi.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (VkResult r = vkCreateComputePipelines(I.device, VK_NULL_HANDLE, 1, &cpi, nullptr, &p.pipe); r != VK_SUCCESS)
    return std::string(s.name) + ": " + vkerr("vkCreateComputePipelines", r);
  return {};
}

struct Recording {
  VkCommandBuffer cb = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets;
  VkQueryPool queries = VK_NULL_HANDLE;  // timed recordings: steps + 1 timestamps
  uint32_t query_count = 0;
};

std::string Runtime::record(std::span<const Dispatch> steps, Recording*& out, Timing timing) {
  Impl& I = *impl_;
  std::lock_guard<std::mutex> lock(I.mu);
  auto rec = std::make_unique<Recording>();
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = I.pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  vkAllocateCommandBuffers(I.device, &cai, &rec->cb);
  VkCommandBufferBeginInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(rec->cb, &cbi);
  std::string err;
  const bool chained = timing != Timing::independent;
  if (timing != Timing::none) {
    if (I.timestamp_ns == 0) err = "the device's compute queue has no timestamps";
    VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpi.queryCount = chained ? static_cast<uint32_t>(steps.size() + 1) : 2u;
    if (err.empty() && vkCreateQueryPool(I.device, &qpi, nullptr, &rec->queries) == VK_SUCCESS) {
      rec->query_count = qpi.queryCount;
      vkCmdResetQueryPool(rec->cb, rec->queries, 0, qpi.queryCount);
      vkCmdWriteTimestamp(rec->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rec->queries, 0);
    } else if (err.empty()) {
      err = "vkCreateQueryPool failed";
    }
  }
  for (size_t n = 0; n < steps.size() && err.empty(); ++n) {
    const Dispatch& d = steps[n];
    const Shader& s = *d.shader;
    if (d.bindings.size() != s.bindings) { err = std::string(s.name) + ": wrong number of buffers"; break; }
    for (Buffer* b : d.bindings)
      if (!b || !b->handle) err = std::string(s.name) + ": a buffer could not be allocated";
    if (!err.empty()) break;
    Pipeline* p = nullptr;
    if (err = pipeline_for(I, s, p); !err.empty()) break;
    VkDescriptorSetAllocateInfo dai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dai.descriptorPool = I.dpool;
    dai.descriptorSetCount = 1;
    dai.pSetLayouts = &p->dsl;
    VkDescriptorSet set;
    if (VkResult r = vkAllocateDescriptorSets(I.device, &dai, &set); r != VK_SUCCESS) {
      err = vkerr("vkAllocateDescriptorSets", r);
      break;
    }
    rec->sets.push_back(set);
    std::vector<VkDescriptorBufferInfo> bi(s.bindings);
    std::vector<VkWriteDescriptorSet> wr(s.bindings);
    for (uint32_t i = 0; i < s.bindings; ++i) {
      bi[i] = {static_cast<BufferImpl*>(d.bindings[i]->handle)->buf, 0, VK_WHOLE_SIZE};
      wr[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, i, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
               nullptr, &bi[i], nullptr};
    }
    vkUpdateDescriptorSets(I.device, s.bindings, wr.data(), 0, nullptr);
    if (n > 0 && chained) {  // each dispatch sees the previous one's writes
      VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
      vkCmdPipelineBarrier(rec->cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                           &mb, 0, nullptr, 0, nullptr);
    }
    vkCmdBindPipeline(rec->cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipe);
    vkCmdBindDescriptorSets(rec->cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &set, 0, nullptr);
    if (s.push_bytes) vkCmdPushConstants(rec->cb, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, s.push_bytes, d.push.data());
    vkCmdDispatch(rec->cb, d.gx, d.gy, d.gz);
    if (rec->queries && chained)
      vkCmdWriteTimestamp(rec->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rec->queries, static_cast<uint32_t>(n + 1));
  }
  if (rec->queries && !chained && err.empty())
    vkCmdWriteTimestamp(rec->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rec->queries, 1u);
  vkEndCommandBuffer(rec->cb);
  out = rec.release();  // the caller releases it, also after an error
  return err;
}

std::string Runtime::submit(Recording* rec) {
  Impl& I = *impl_;
  std::lock_guard<std::mutex> lock(I.mu);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &rec->cb;
  vkResetFences(I.device, 1, &I.fence);
  if (VkResult r = vkQueueSubmit(I.queue, 1, &si, I.fence); r != VK_SUCCESS) return vkerr("vkQueueSubmit", r);
  if (VkResult w = vkWaitForFences(I.device, 1, &I.fence, VK_TRUE, 60ull * 1000 * 1000 * 1000); w != VK_SUCCESS)
    return vkerr("vkWaitForFences (60 s watchdog)", w);
  return {};
}

std::string Runtime::shader_stats(const Shader& s) {
  Impl& I = *impl_;
  std::lock_guard<std::mutex> lock(I.mu);
  if (!I.stats) return "the device reports no pipeline statistics";
  Pipeline* p = nullptr;
  if (std::string e = pipeline_for(I, s, p); !e.empty()) return e;
  auto get = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(I.device, "vkGetPipelineExecutableStatisticsKHR"));
  if (!get) return "vkGetPipelineExecutableStatisticsKHR missing";
  VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
  ei.pipeline = p->pipe;
  ei.executableIndex = 0;
  uint32_t n = 0;
  get(I.device, &ei, &n, nullptr);
  std::vector<VkPipelineExecutableStatisticKHR> st(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
  get(I.device, &ei, &n, st.data());
  std::string out;
  for (const auto& x : st) {
    out += (out.empty() ? "" : ", ") + std::string(x.name) + "=";
    switch (x.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: out += x.value.b32 ? "true" : "false"; break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: out += std::to_string(x.value.i64); break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: out += std::to_string(x.value.u64); break;
      default: out += std::to_string(x.value.f64); break;
    }
  }
  return out;
}

std::string Runtime::timestamps(Recording* rec, std::vector<double>& ns) {
  Impl& I = *impl_;
  if (!rec || !rec->queries) return "not a timed recording";
  std::vector<uint64_t> t(rec->query_count);
  if (VkResult r = vkGetQueryPoolResults(I.device, rec->queries, 0, rec->query_count, t.size() * 8, t.data(), 8,
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      r != VK_SUCCESS)
    return vkerr("vkGetQueryPoolResults", r);
  ns.clear();
  for (size_t i = 1; i < t.size(); ++i) ns.push_back(static_cast<double>(t[i] - t[i - 1]) * I.timestamp_ns);
  return {};
}

void Runtime::release(Recording* rec) {
  if (!rec) return;
  Impl& I = *impl_;
  std::lock_guard<std::mutex> lock(I.mu);
  if (rec->queries) vkDestroyQueryPool(I.device, rec->queries, nullptr);
  vkFreeCommandBuffers(I.device, I.pool, 1, &rec->cb);
  if (!rec->sets.empty()) vkFreeDescriptorSets(I.device, I.dpool, static_cast<uint32_t>(rec->sets.size()), rec->sets.data());
  delete rec;
}

std::string Runtime::dispatch(const Shader& s, std::span<Buffer* const> bindings, const void* push, uint32_t gx,
                              uint32_t gy, uint32_t gz) {
  Dispatch d{&s, {bindings.begin(), bindings.end()}, {}, gx, gy, gz};
  if (s.push_bytes) d.push.assign(static_cast<const uint8_t*>(push), static_cast<const uint8_t*>(push) + s.push_bytes);
  Recording* rec = nullptr;
  std::string err = record({&d, 1}, rec);
  if (err.empty()) err = submit(rec);
  release(rec);
  return err;
}

}  // namespace qgate::vk
