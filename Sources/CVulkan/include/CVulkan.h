#ifndef FRAMEFARM_CVULKAN_H
#define FRAMEFARM_CVULKAN_H

// The Vulkan loader is opened at run time (dlopen), not linked: a machine without libvulkan1 then gets one clear
// error from `framefarm` naming the Debian packages, instead of the dynamic linker refusing to start it.
// Types come from the Vulkan headers; each function FrameFarm calls is a function pointer of the same name,
// filled by framefarm_vulkan_open() before any Vulkan call.
#define VK_NO_PROTOTYPES
#include <stddef.h>
#include <vulkan/vulkan.h>

#define FRAMEFARM_VULKAN_FUNCTIONS(X) \
    X(vkAllocateCommandBuffers) X(vkAllocateDescriptorSets) X(vkAllocateMemory) X(vkBeginCommandBuffer) \
    X(vkBindBufferMemory) X(vkCmdBindDescriptorSets) X(vkCmdBindPipeline) X(vkCmdCopyBuffer) X(vkCmdDispatch) \
    X(vkCmdFillBuffer) X(vkCmdPipelineBarrier) X(vkCmdPushConstants) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp) \
    X(vkCreateBuffer) \
    X(vkCreateBufferView) X(vkCreateCommandPool) X(vkCreateComputePipelines) X(vkCreateDescriptorPool) \
    X(vkCreateDescriptorSetLayout) X(vkCreateDevice) X(vkCreateFence) X(vkCreateInstance) X(vkCreatePipelineLayout) \
    X(vkCreateQueryPool) X(vkCreateShaderModule) X(vkDestroyBuffer) X(vkDestroyBufferView) X(vkDestroyCommandPool) \
    X(vkDestroyDescriptorPool) X(vkDestroyDescriptorSetLayout) X(vkDestroyDevice) X(vkDestroyFence) \
    X(vkDestroyInstance) X(vkDestroyPipeline) X(vkDestroyPipelineLayout) X(vkDestroyQueryPool) \
    X(vkDestroyShaderModule) X(vkDeviceWaitIdle) X(vkEndCommandBuffer) X(vkEnumerateInstanceLayerProperties) \
    X(vkEnumeratePhysicalDevices) X(vkFreeMemory) X(vkGetBufferMemoryRequirements) X(vkGetDeviceQueue) \
    X(vkGetInstanceProcAddr) X(vkGetPhysicalDeviceMemoryProperties) X(vkGetPhysicalDeviceProperties) \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetQueryPoolResults) X(vkMapMemory) X(vkQueueSubmit) \
    X(vkResetCommandBuffer) X(vkResetFences) X(vkUnmapMemory) X(vkUpdateDescriptorSets) X(vkWaitForFences)

// Written once, under pthread_once, before any Vulkan call, and only read after: safe to read from any thread.
#define FRAMEFARM_DECLARE_VULKAN_FUNCTION(name) \
    extern PFN_##name _Nonnull name __attribute__((swift_attr("nonisolated(unsafe)")));
FRAMEFARM_VULKAN_FUNCTIONS(FRAMEFARM_DECLARE_VULKAN_FUNCTION)
#undef FRAMEFARM_DECLARE_VULKAN_FUNCTION

/// Opens the Vulkan loader (`path`, or libvulkan.so.1 when NULL) and resolves every function above; the first
/// call does the work (with its path) and later calls repeat its result. Returns 0 on success; otherwise -1, with
/// the reason in `message`.
int framefarm_vulkan_open(const char *_Nullable path, char *_Nonnull message, size_t capacity);

/// Opens the driver library at `path` with RTLD_DEEPBIND and keeps it open, so that the symbols it and the
/// libraries it brings look up are found in its own dependencies before the process's global scope; the loader's
/// own dlopen of it later gets the same library. Skipped (returns 0) under a sanitizer runtime, which refuses
/// deep binding. Returns 1 when the library is open.
int framefarm_vulkan_deep_bind_driver(const char *_Nonnull path);

#endif
