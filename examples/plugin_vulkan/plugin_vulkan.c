/* An example plugin of ABI version 2 with a Vulkan kernel (docs/PLUGINS.md): qgate opens the
 * device, allocates the weight, the activations and the guarded, NaN-poisoned output as
 * storage buffers, and hands their VkBuffer handles with the device and its queue; the plugin
 * builds its pipeline once in init, records and submits one dispatch per launch.
 *
 *   vk_matvec_q8_0_f32                correct: one invocation per output, blocks in order
 *   wrong_vk_matvec_q8_0_f32_crossed  the codes of neighbouring lanes swapped
 *
 * Vulkan entry points come from the vkGetInstanceProcAddr qgate hands over, so the plugin
 * links no loader. The SPIR-V is matvec_q8_0.comp, compiled by glslc at build time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "plugin/qgate_plugin.h"

extern const uint32_t qgate_example_matvec_q8_0_spv[];
extern const size_t qgate_example_matvec_q8_0_spv_words;

typedef struct {
  VkDevice dev;
  VkQueue queue;
  PFN_vkGetDeviceProcAddr gdpa;
  VkShaderModule module;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout layout;
  VkPipeline pipe;
  VkDescriptorPool dpool;
  VkDescriptorSet set;
  VkCommandPool cpool;
  VkCommandBuffer cmd;
  VkFence fence;
} vk_state;

#define FN(name) PFN_##name name = (PFN_##name)s->gdpa(s->dev, #name)

static int32_t fail(char* msg, size_t size, const char* what, VkResult r) {
  snprintf(msg, size, "%s failed (VkResult %d)", what, (int)r);
  return 1;
}

static void teardown(void* session) {
  vk_state* s = (vk_state*)session;
  if (!s) return;
  FN(vkDeviceWaitIdle);
  FN(vkDestroyFence);
  FN(vkDestroyCommandPool);
  FN(vkDestroyDescriptorPool);
  FN(vkDestroyPipeline);
  FN(vkDestroyPipelineLayout);
  FN(vkDestroyDescriptorSetLayout);
  FN(vkDestroyShaderModule);
  vkDeviceWaitIdle(s->dev);
  if (s->fence) vkDestroyFence(s->dev, s->fence, NULL);
  if (s->cpool) vkDestroyCommandPool(s->dev, s->cpool, NULL);
  if (s->dpool) vkDestroyDescriptorPool(s->dev, s->dpool, NULL);
  if (s->pipe) vkDestroyPipeline(s->dev, s->pipe, NULL);
  if (s->layout) vkDestroyPipelineLayout(s->dev, s->layout, NULL);
  if (s->dsl) vkDestroyDescriptorSetLayout(s->dev, s->dsl, NULL);
  if (s->module) vkDestroyShaderModule(s->dev, s->module, NULL);
  free(s);
}

static int32_t init(const qgate_plugin_v2_config* cfg, const qgate_plugin_v2_device* d, void** session, char* msg,
                    size_t size) {
  (void)cfg;
  if (d->backend != QGATE_BACKEND_VULKAN || !d->vk_device) return snprintf(msg, size, "not a Vulkan session"), 1;
  vk_state* s = (vk_state*)calloc(1, sizeof *s);
  if (!s) return snprintf(msg, size, "out of memory"), 1;
  *session = s;
  PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)d->vk_get_instance_proc_addr;
  s->dev = (VkDevice)d->vk_device;
  s->queue = (VkQueue)d->vk_queue;
  s->gdpa = (PFN_vkGetDeviceProcAddr)gipa((VkInstance)d->vk_instance, "vkGetDeviceProcAddr");
  if (!s->gdpa) return snprintf(msg, size, "no vkGetDeviceProcAddr"), 1;
  FN(vkCreateShaderModule);
  FN(vkCreateDescriptorSetLayout);
  FN(vkCreatePipelineLayout);
  FN(vkCreateComputePipelines);
  FN(vkCreateDescriptorPool);
  FN(vkAllocateDescriptorSets);
  FN(vkCreateCommandPool);
  FN(vkAllocateCommandBuffers);
  FN(vkCreateFence);
  VkResult r;
  VkShaderModuleCreateInfo smi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smi.codeSize = qgate_example_matvec_q8_0_spv_words * 4;
  smi.pCode = qgate_example_matvec_q8_0_spv;
  if ((r = vkCreateShaderModule(s->dev, &smi, NULL, &s->module))) return fail(msg, size, "vkCreateShaderModule", r);
  VkDescriptorSetLayoutBinding b[3];
  for (uint32_t i = 0; i < 3; ++i) {
    b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
  }
  VkDescriptorSetLayoutCreateInfo dli = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dli.bindingCount = 3;
  dli.pBindings = b;
  if ((r = vkCreateDescriptorSetLayout(s->dev, &dli, NULL, &s->dsl))) return fail(msg, size, "vkCreateDescriptorSetLayout", r);
  VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 16};
  VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &s->dsl;
  pli.pushConstantRangeCount = 1;
  pli.pPushConstantRanges = &pcr;
  if ((r = vkCreatePipelineLayout(s->dev, &pli, NULL, &s->layout))) return fail(msg, size, "vkCreatePipelineLayout", r);
  VkComputePipelineCreateInfo cpi = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpi.stage.module = s->module;
  cpi.stage.pName = "main";
  cpi.layout = s->layout;
  if ((r = vkCreateComputePipelines(s->dev, VK_NULL_HANDLE, 1, &cpi, NULL, &s->pipe))) return fail(msg, size, "vkCreateComputePipelines", r);
  VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &ps;
  if ((r = vkCreateDescriptorPool(s->dev, &dpi, NULL, &s->dpool))) return fail(msg, size, "vkCreateDescriptorPool", r);
  VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dai.descriptorPool = s->dpool;
  dai.descriptorSetCount = 1;
  dai.pSetLayouts = &s->dsl;
  if ((r = vkAllocateDescriptorSets(s->dev, &dai, &s->set))) return fail(msg, size, "vkAllocateDescriptorSets", r);
  VkCommandPoolCreateInfo cpci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpci.queueFamilyIndex = d->vk_queue_family;
  if ((r = vkCreateCommandPool(s->dev, &cpci, NULL, &s->cpool))) return fail(msg, size, "vkCreateCommandPool", r);
  VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = s->cpool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  if ((r = vkAllocateCommandBuffers(s->dev, &cai, &s->cmd))) return fail(msg, size, "vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fci = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if ((r = vkCreateFence(s->dev, &fci, NULL, &s->fence))) return fail(msg, size, "vkCreateFence", r);
  return 0;
}

/* user: NULL = correct, non-NULL = crossed lanes. */
static int32_t launch(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t size) {
  vk_state* s = (vk_state*)c->session;
  if (!s) return snprintf(msg, size, "no session state (init did not run)"), 1;
  if (c->k % 32) return snprintf(msg, size, "k is not a multiple of 32"), 1;
  FN(vkUpdateDescriptorSets);
  FN(vkResetCommandBuffer);
  FN(vkBeginCommandBuffer);
  FN(vkCmdBindPipeline);
  FN(vkCmdBindDescriptorSets);
  FN(vkCmdPushConstants);
  FN(vkCmdDispatch);
  FN(vkEndCommandBuffer);
  FN(vkQueueSubmit);
  FN(vkWaitForFences);
  FN(vkResetFences);
  const qgate_plugin_v2_tensor* t[3] = {&c->w, &c->x, &c->y};
  VkDescriptorBufferInfo bi[3];
  VkWriteDescriptorSet wr[3];
  for (int i = 0; i < 3; ++i) {
    /* the shader reads whole 32-bit words: ranges rounded up to 4 (qgate's buffers hold 16 more) */
    bi[i] = (VkDescriptorBufferInfo){(VkBuffer)(uintptr_t)t[i]->vk_buffer, t[i]->vk_offset, (t[i]->bytes + 3) / 4 * 4};
    wr[i] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, s->set, (uint32_t)i, 0, 1,
                                   VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi[i], NULL};
  }
  vkUpdateDescriptorSets(s->dev, 3, wr, 0, NULL);
  const uint32_t push[4] = {(uint32_t)c->n, (uint32_t)c->k, (uint32_t)c->m, user != NULL};
  VkResult r;
  vkResetCommandBuffer(s->cmd, 0);
  VkCommandBufferBeginInfo cbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  cbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if ((r = vkBeginCommandBuffer(s->cmd, &cbi))) return fail(msg, size, "vkBeginCommandBuffer", r);
  vkCmdBindPipeline(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipe);
  vkCmdBindDescriptorSets(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 1, &s->set, 0, NULL);
  vkCmdPushConstants(s->cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
  vkCmdDispatch(s->cmd, (uint32_t)((c->n * c->m + 63) / 64), 1, 1);
  if ((r = vkEndCommandBuffer(s->cmd))) return fail(msg, size, "vkEndCommandBuffer", r);
  VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &s->cmd;
  if ((r = vkQueueSubmit(s->queue, 1, &si, s->fence))) return fail(msg, size, "vkQueueSubmit", r);
  r = vkWaitForFences(s->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
  vkResetFences(s->dev, 1, &s->fence);
  if (r) return fail(msg, size, "vkWaitForFences", r);
  return 0;
}

/* Depth: 32 products per block, the scale product, one addition per block: ceil(k/32) + 36.
 * The device may flush f32 denormals (the H200's driver does): declared. */
#define KERNEL(name, user)                                                                               \
  {name, QGATE_OP_MATMUL, "q8_0", QGATE_BACKEND_VULKAN, 1, 64, 32, 0,                                     \
   {QGATE_ACT_NONE, 23, {1, 32, 36}, QGATE_OUT_F32, 1}, 1, launch, user, NULL}
static const qgate_plugin_v2_kernel kKernels[] = {
    KERNEL("vk_matvec_q8_0_f32", NULL),
    KERNEL("wrong_vk_matvec_q8_0_f32_crossed", (const void*)1),
};
static const qgate_plugin_v2_library kLibrary = {sizeof(qgate_plugin_v2_library), QGATE_PLUGIN_V2_ABI_VERSION, kKernels,
                                                 sizeof kKernels / sizeof kKernels[0], init, teardown};

QGATE_PLUGIN_EXPORT const qgate_plugin_v2_library* qgate_plugin_v2_get(uint32_t host_abi_version,
                                                                       const qgate_plugin_v2_config* config, char* msg,
                                                                       size_t size) {
  (void)config;
  if (host_abi_version != QGATE_PLUGIN_V2_ABI_VERSION) {
    snprintf(msg, size, "built for ABI version 2");
    return NULL;
  }
  return &kLibrary;
}
