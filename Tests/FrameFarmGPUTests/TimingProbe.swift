import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    /// Not a test of correctness: prints the Vulkan-stage time of the two reference workloads when
    /// FRAMEFARM_GPU_TIMING=1 (performance is the bench's job; this is the quick look while tuning shaders).
    @Suite(.enabled(if: ProcessInfo.processInfo.environment["FRAMEFARM_GPU_TIMING"] == "1"))
    struct TimingProbe {
        static let frame1080 = SyntheticFrame(
            format: TestFormat.yuv420p.format(width: 1920, height: 1080, color: .assumed(forHeight: 1080)),
            luma: { x, y in 0.5 + 0.25 * sin(x / 13 + y / 29) + 0.2 * cos(x * y / 9000) },
            cb: { x, _ in 0.2 * sin(x / 40) }, cr: { _, y in 0.2 * cos(y / 30) })

        /// FRAMEFARM_TIMING_ITERATIONS overrides each workload's count: thousands give a run long enough to attach
        /// `perf` or `gdb` to.
        static func measure(_ name: String, _ batch: RenderBatch, iterations defaultIterations: Int = 15) throws {
            let iterations = Int(ProcessInfo.processInfo.environment["FRAMEFARM_TIMING_ITERATIONS"] ?? "")
                ?? defaultIterations
            try TestGPU.withRenderer { renderer in
                for _ in 0..<3 { _ = try renderer.render(batch) }
                var execute: [Double] = [], total: [Double] = []
                func cpuMilliseconds() -> Double {
                    var usage = rusage()
                    getrusage(RUSAGE_SELF.rawValue, &usage)
                    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
                        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
                }
                let cpuStart = cpuMilliseconds()
                for _ in 0..<iterations {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try renderer.render(batch)
                    total.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    execute.append(renderer.lastTimings.executeMilliseconds)
                }
                let cpu = (cpuMilliseconds() - cpuStart) / Double(iterations)
                let t = renderer.lastTimings
                func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
                print(String(format: "%@: execute median %.2f ms (min %.2f, max %.2f); render() median %.2f ms; "
                    + "process CPU %.2f ms per render [last: plan %.2f, upload %.2f, record %.2f]", name,
                    median(execute), execute.min()!, execute.max()!, median(total), cpu, t.planMilliseconds,
                    t.uploadMilliseconds, t.recordMilliseconds))
            }
        }

        @Test func thumbnail1080pTo160() throws {
            let size = PixelSize(width: 160, height: 90)
            try Self.measure("1080p -> 160x90 lanczos3", RenderBatch(
                sources: [Self.frame1080.sourceFrame], canvases: [CanvasSpec(size: size)],
                jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 1920, height: 1080),
                                 destination: PixelRect(size: size), canvasIndex: 0)], filter: ResamplingFilter(rawValue: ProcessInfo.processInfo.environment["FILTER"] ?? "lanczos3")!))
        }

        /// 20 device screens (portrait and landscape, fit and fill) from one 1080p frame.
        @Test func deviceScreens1080p() throws {
            let screens = [(1179, 2556), (1290, 2796), (750, 1334), (1170, 2532), (2048, 2732), (1640, 2360),
                           (1080, 2400), (1440, 3120), (396, 484), (1920, 1080)]
            var canvases: [CanvasSpec] = [], jobs: [RenderJob] = []
            for (width, height) in screens {
                for landscape in [false, true] {
                    let size = landscape ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
                    let scale = min(Double(size.width) / 1920, Double(size.height) / 1080)
                    let fit = PixelSize(width: Int(1920 * scale), height: Int(1080 * scale))
                    let index = canvases.count
                    canvases.append(CanvasSpec(size: size, overlays: [
                        .safeAreaOutline(PixelRect(x: 40, y: 60, width: size.width - 80, height: size.height - 120),
                                         color: RGBA8(red: 255, green: 0, blue: 0, alpha: 160), thickness: 3),
                        .roundedCornerMask(radius: 55),
                    ]))
                    jobs.append(RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 1920, height: 1080),
                                          destination: PixelRect(x: (size.width - fit.width) / 2,
                                                                 y: (size.height - fit.height) / 2,
                                                                 width: fit.width, height: fit.height),
                                          canvasIndex: index))
                }
            }
            try Self.measure("1080p -> 20 device canvases", RenderBatch(
                sources: [Self.frame1080.sourceFrame], canvases: canvases, jobs: jobs), iterations: 5)
        }
    }
}
