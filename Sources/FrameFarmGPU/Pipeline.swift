import CVulkan

/// The pipeline layout every pass shares: the shared descriptor set layout plus `pushConstantSize` bytes.
///
/// Ownership: owns the `VkPipelineLayout`. Thread-safety: immutable after init.
final class PipelineLayout {
    let context: GPUContext
    let handle: VkPipelineLayout
    let setLayout: DescriptorSetLayout
    let pushConstantSize: Int

    init(setLayout: DescriptorSetLayout, pushConstantSize: Int) throws {
        var range = VkPushConstantRange()
        range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT.rawValue
        range.offset = 0
        range.size = UInt32(pushConstantSize)
        var layouts: [VkDescriptorSetLayout?] = [setLayout.handle]
        var handle: VkPipelineLayout?
        try withUnsafePointer(to: &range) { rangePointer in
            var info = VkPipelineLayoutCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
            info.setLayoutCount = 1
            info.pushConstantRangeCount = pushConstantSize > 0 ? 1 : 0
            info.pPushConstantRanges = rangePointer
            try layouts.withUnsafeMutableBufferPointer { layoutPointer in
                info.pSetLayouts = UnsafePointer(layoutPointer.baseAddress)
                try vkCheck("vkCreatePipelineLayout",
                            vkCreatePipelineLayout(setLayout.context.device, &info, nil, &handle))
            }
        }
        self.context = setLayout.context
        self.handle = handle!
        self.setLayout = setLayout
        self.pushConstantSize = pushConstantSize
    }

    deinit { vkDestroyPipelineLayout(context.device, handle, nil) }
}

/// A compute pipeline built from one of `ShaderLibrary`'s modules, with 32-bit specialization constants
/// (constant_id = index in `specialization`): modes and workgroup sizes are fixed at pipeline creation.
///
/// Ownership: owns the `VkShaderModule` and the `VkPipeline`. Thread-safety: immutable after init.
final class ComputePipeline {
    let context: GPUContext
    let layout: PipelineLayout
    let shaderModule: VkShaderModule
    let handle: VkPipeline
    let name: String

    init(layout: PipelineLayout, shader: SPIRVModule, specialization: [UInt32] = []) throws {
        let device = layout.context.device
        var module: VkShaderModule?
        try shader.words.withUnsafeBufferPointer { words in
            var info = VkShaderModuleCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            info.codeSize = words.count * 4
            info.pCode = words.baseAddress
            try vkCheck("vkCreateShaderModule", vkCreateShaderModule(device, &info, nil, &module))
        }
        let entries = specialization.indices.map { index in
            VkSpecializationMapEntry(constantID: UInt32(index), offset: UInt32(index * 4), size: 4)
        }
        var pipeline: VkPipeline?
        let result = "main".withCString { entryName in
            entries.withUnsafeBufferPointer { entryPointer in
                specialization.withUnsafeBytes { data in
                    var specializationInfo = VkSpecializationInfo()
                    specializationInfo.mapEntryCount = UInt32(entries.count)
                    specializationInfo.pMapEntries = entryPointer.baseAddress
                    specializationInfo.dataSize = data.count
                    specializationInfo.pData = data.baseAddress
                    return withUnsafePointer(to: &specializationInfo) { specializationPointer in
                        var stage = VkPipelineShaderStageCreateInfo()
                        stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
                        stage.stage = VK_SHADER_STAGE_COMPUTE_BIT
                        stage.module = module
                        stage.pName = entryName
                        stage.pSpecializationInfo = specialization.isEmpty ? nil : specializationPointer
                        var info = VkComputePipelineCreateInfo()
                        info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
                        info.stage = stage
                        info.layout = layout.handle
                        return vkCreateComputePipelines(device, nil, 1, &info, nil, &pipeline)
                    }
                }
            }
        }
        if result != VK_SUCCESS {
            vkDestroyShaderModule(device, module, nil)
            throw VulkanError(call: "vkCreateComputePipelines", result: result)
        }
        self.context = layout.context
        self.layout = layout
        self.shaderModule = module!
        self.handle = pipeline!
        self.name = shader.name
    }

    deinit {
        vkDestroyPipeline(context.device, handle, nil)
        vkDestroyShaderModule(context.device, shaderModule, nil)
    }
}
