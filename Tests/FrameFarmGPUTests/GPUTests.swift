import Testing

/// Every GPU suite nests here so they run one at a time: they share one device and renderer, and the resource
/// test's process-memory measurement must not see other tests' allocations.
@Suite(.serialized) enum GPUTests {}
