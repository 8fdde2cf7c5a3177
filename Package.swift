// swift-tools-version:6.0
import PackageDescription

// Layers (see docs/architecture.md): FrameFarmCore (pure Swift) <- FrameFarmMedia (FFmpeg, libpng, libdeflate, libjpeg-turbo,
// libwebp)
// and FrameFarmGPU (Vulkan) <- FrameFarm (engine) <- framefarm, bench; FrameFarmSamples (the test-video generator,
// on Core and Media) serves framefarm, bench and the tests. Only Media and GPU import the C modules.
let package = Package(
    name: "FrameFarm",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "framefarm", targets: ["framefarm"]),
        .executable(name: "bench", targets: ["bench"]),
        .library(name: "FrameFarm", targets: ["FrameFarm"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Vulkan headers from libvulkan-dev; the loader itself is opened at run time (Sources/CVulkan/include).
        .target(name: "CVulkan", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        .target(name: "FrameFarmCore"),
        .target(name: "FrameFarmMedia", dependencies: ["FrameFarmCore", "CFFmpeg", "CPNG", "CTurboJPEG", "CDeflate",
                                                       "CWebP", "CCurl"]),
        .target(name: "FrameFarmGPU", dependencies: ["FrameFarmCore", "CVulkan"],
                plugins: [.plugin(name: "ShaderCompiler")]),
        .target(name: "FrameFarm", dependencies: ["FrameFarmCore", "FrameFarmMedia", "FrameFarmGPU"]),
        // The synthetic test-video generator: `framefarm sample`, the tests and the bench; not the engine.
        .target(name: "FrameFarmSamples", dependencies: ["FrameFarmCore", "FrameFarmMedia"]),
        .executableTarget(name: "framefarm", dependencies: [
            "FrameFarm", "FrameFarmSamples", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "bench", dependencies: [
            "FrameFarm", "FrameFarmSamples", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Benchmarks/bench"),

        .plugin(name: "ShaderCompiler", capability: .buildTool()),

        .testTarget(name: "FrameFarmCoreTests", dependencies: ["FrameFarmCore"]),
        .testTarget(name: "FrameFarmMediaTests", dependencies: ["FrameFarmMedia", "FrameFarmSamples"]),
        .testTarget(name: "FrameFarmGPUTests", dependencies: ["FrameFarmGPU"]),
        .testTarget(name: "FrameFarmTests", dependencies: ["FrameFarm", "FrameFarmMedia", "FrameFarmSamples"]),
    ],
    swiftLanguageModes: [.v6]
)
