import CVulkan

/// One in-flight use of a command buffer: a fence, and the objects the GPU reads or writes until the fence
/// signals (kept alive here so a buffer swapped out by growth is not freed under the GPU).
///
/// Ownership: owns the `VkFence`; `deinit` waits for outstanding work before destroying it. Thread-safety: none.
final class Submission {
    let context: GPUContext
    let fence: VkFence
    private(set) var isPending = false
    private var retained: [AnyObject] = []

    init(context: GPUContext) throws {
        var info = VkFenceCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
        var fence: VkFence?
        try vkCheck("vkCreateFence", vkCreateFence(context.device, &info, nil, &fence))
        self.context = context
        self.fence = fence!
    }

    deinit {
        if isPending { _ = try? wait() }
        vkDestroyFence(context.device, fence, nil)
    }

    /// Submits `commands`, keeping `resources` alive until `wait()` returns.
    func submit(_ commands: CommandContext, retaining resources: [AnyObject]) throws {
        precondition(!isPending, "submit while the previous submission is in flight")
        var fence: VkFence? = self.fence
        try vkCheck("vkResetFences", vkResetFences(context.device, 1, &fence))
        try context.submit(commands.commandBuffer, signalling: self.fence)
        retained = resources + [commands]
        isPending = true
    }

    /// Blocks until the GPU has finished the submitted work; no-op when nothing is pending.
    func wait() throws {
        guard isPending else { return }
        var fence: VkFence? = self.fence
        try vkCheck("vkWaitForFences", vkWaitForFences(context.device, 1, &fence, VkBool32(VK_TRUE), UInt64.max))
        isPending = false
        retained.removeAll()
    }
}
