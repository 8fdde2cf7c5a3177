import Foundation
import Testing
@testable import FrameFarm

/// The executables turn the `FRAMEFARM_*` variables into one `Configuration`; the library reads none itself.
@Suite struct ConfigurationTests {
    @Test func everyVariableSetsItsField() throws {
        let configuration = try Configuration(environment: [
            "FRAMEFARM_GPU": "llvmpipe", "FRAMEFARM_VALIDATION": "1", "FRAMEFARM_PREFILTER": "device",
            "FRAMEFARM_CANVASES": "device", "FRAMEFARM_GPU_TIMING": "1", "FRAMEFARM_FFMPEG_LOG": "Warning",
            "FRAMEFARM_VULKAN_LOADER": "/opt/vulkan/libvulkan.so.1", "FRAMEFARM_PNG_COMPRESSOR": "libdeflate",
            "PATH": "/usr/bin",
        ])
        var expected = Configuration()
        expected.gpu.selection = .nameContains("llvmpipe")
        expected.gpu.selectionNamedBy = "FRAMEFARM_GPU=llvmpipe"
        expected.gpu.validation = true
        expected.gpu.prefilter = .device
        expected.gpu.canvasesOnDevice = true
        expected.gpu.printsTimings = true
        expected.gpu.loaderPath = "/opt/vulkan/libvulkan.so.1"
        expected.ffmpegLog = .warning
        expected.pngCompressor = .libdeflate
        #expect(configuration == expected)
        #expect(try Configuration(environment: [:]) == Configuration())
        #expect(try Configuration(environment: ["FRAMEFARM_GPU": ""]) == Configuration(), "empty is unset")
        let names = Configuration.variables.map(\.name)
        #expect(Set(names).count == names.count && names.count >= 9)
        // The one table users read has a row for each.
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/development.md")
        let table = try String(contentsOf: docs, encoding: .utf8)
        for name in names { #expect(table.contains("| `\(name)` |"), "docs/development.md has no row for \(name)") }
    }

    @Test func aMeaninglessValueNamesTheVariableAndTheValuesItTakes() {
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["FRAMEFARM_VALIDATION": "yes"]) }
        do {
            _ = try Configuration(environment: ["FRAMEFARM_PREFILTER": "gpu"])
            Issue.record("FRAMEFARM_PREFILTER=gpu was accepted")
        } catch {
            #expect(error.description == "FRAMEFARM_PREFILTER=gpu is not valid (expected auto, host, device)")
        }
    }

    @Test func aBadVariableIsAUsageError() throws {
        let run = try CommandLineTests.run(["probe", "x.mp4"], environment: ["FRAMEFARM_FFMPEG_LOG": "loud"])
        #expect(run.status == 2)
        #expect(run.stderr == "framefarm: FRAMEFARM_FFMPEG_LOG=loud is not valid (expected quiet, error, warning, info, debug)\n")
    }

    /// FFmpeg's warnings, asked for, are the file's, not one of FrameFarm's own making per decoder: the frame
    /// pool's get_buffer2 is thread-safe and says so (FFmpeg before 6.0 warned, and handed each call to one thread).
    @Test func ffmpegsWarningsAreNotAboutFrameFarm() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory) { $0.durationSeconds = 2 }
        let run = try CommandLineTests.run(["thumbnails", video, "--out", directory.file("out"), "--interval", "0.5"],
                                           environment: ["FRAMEFARM_FFMPEG_LOG": "warning"])
        #expect(run.status == 0 && !run.stderr.contains("get_buffer2"), "\(run.stderr)")
    }

    /// Only the executables (and the tests) may read the process environment.
    @Test func theLibraryReadsNoEnvironment() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
            .standardizedFileURL.path
        let libraryFolders = try FileManager.default.contentsOfDirectory(atPath: sources).filter { $0 != "framefarm" }
        #expect(libraryFolders.contains("FrameFarmGPU") && libraryFolders.contains("CVulkan"))
        for folder in libraryFolders {
            for file in FileManager.default.enumerator(atPath: sources + "/" + folder)!.compactMap({ $0 as? String }) {
                let text = (try? String(contentsOfFile: sources + "/\(folder)/\(file)", encoding: .utf8)) ?? ""
                for reading in ["processInfo.environment", "getenv(", "secure_getenv("] {
                    #expect(!text.contains(reading), "\(folder)/\(file) reads the environment (\(reading))")
                }
            }
        }
    }
}
