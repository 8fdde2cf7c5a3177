// The engine's clients (the CLI, the bench) see the pure core types, never the media or gpu layers directly.
@_exported import FrameFarmCore
import FrameFarmGPU
import FrameFarmMedia

// What `Configuration` is made of, for the executables that fill it in.
public typealias GPUConfiguration = FrameFarmGPU.GPUConfiguration
public typealias GPUSelection = FrameFarmGPU.GPUSelection
public typealias PrefilterPlacement = FrameFarmGPU.PrefilterPlacement
public typealias FFmpegLogLevel = FrameFarmMedia.FFmpegLogLevel
public typealias PNGCompressor = FrameFarmMedia.PNGCompressor
public typealias RemoteSettings = FrameFarmMedia.RemoteSettings
public typealias RemoteInput = FrameFarmMedia.RemoteInput
