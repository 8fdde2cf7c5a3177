import Foundation

/// The ffmpeg CLI as a peer: what a user would otherwise run. Every recipe is kept as the exact argument list so
/// the report can print it verbatim. Thread-safe (immutable).
struct FFmpegPeer: Sendable {
    let executable: String
    let versionLine: String
    let libraryVersions: [String]
    /// `./configure`'s options as `ffmpeg -version` prints them.
    let configuration: String

    var hasLibplacebo: Bool { configuration.contains("--enable-libplacebo") }

    /// nil when no `ffmpeg` is on PATH: every peer is then reported as skipped, never as a win.
    static func find() -> FFmpegPeer? {
        guard let executable = CommandRunner.which("ffmpeg"),
              let result = try? CommandRunner.run(executable, ["-hide_banner", "-version"], captureOutput: true),
              result.succeeded else { return nil }
        let lines = String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").map(String.init)
        let libraries = lines.filter { $0.hasPrefix("lib") }
            .map { $0.split(separator: "/").first.map { String($0).replacingOccurrences(of: " ", with: "") } ?? $0 }
        let configuration = lines.first { $0.hasPrefix("configuration:") } ?? ""
        return FFmpegPeer(executable: executable, versionLine: lines.first ?? "ffmpeg", libraryVersions: libraries,
                          configuration: configuration)
    }

    /// Arguments every recipe starts with: quiet, no stdin, overwrite.
    static let common = ["-v", "error", "-nostdin", "-y"]

    /// Runs one recipe; throws with ffmpeg's message when it fails (a failed peer is reported, not timed).
    func run(_ arguments: [String]) throws -> Double {
        let result = try CommandRunner.run(executable, arguments)
        guard result.succeeded else {
            throw CommandFailure(command: "ffmpeg", status: result.status, message: result.standardError)
        }
        return result.seconds
    }

    /// The recipe as a shell line, for the report.
    static func commandLine(_ arguments: [String]) -> String {
        CommandRunner.shellLine(["ffmpeg"] + arguments)
    }
}

/// The recipes the issue names, with the clip and output paths filled in.
enum FFmpegRecipes {
    /// JPEG quality for every JPEG recipe: ffmpeg's default MJPEG rate control (200 kb/s) would make peers' tiles
    /// far blurrier than FrameFarm's quality-85 sheets; `-q:v 3` is what users pass for good JPEGs.
    static let jpegQuality = ["-q:v", "3"]

    static func tiledTrack(clip: String, output: String, keyframesOnly: Bool, interval: Int = 10,
                           width: Int = 160, columns: Int = 10, rows: Int = 10) -> [String] {
        FFmpegPeer.common + (keyframesOnly ? ["-skip_frame", "nokey"] : []) + ["-i", clip,
            "-vf", "fps=1/\(interval),scale=\(width):-2,tile=\(columns)x\(rows)"] + jpegQuality + [output + "/out%03d.jpg"]
    }

    static func seekThumbnail(clip: String, time: Double, output: String, width: Int = 160) -> [String] {
        FFmpegPeer.common + ["-ss", Format.number(time, digits: 3), "-i", clip, "-frames:v", "1",
                             "-vf", "scale=\(width):-2"] + jpegQuality + [output]
    }

    /// Every preview render of one frame from one process: `split` feeds one chain per render.
    static func previewRenders(clip: String, time: Double, renders: [PreviewRenderSpec], output: String) -> [String] {
        let graph = splitGraph(prefix: nil, chains: renders.map(\.filter))
        var arguments = FFmpegPeer.common + ["-ss", Format.number(time, digits: 3), "-i", clip, "-filter_complex", graph]
        for (index, render) in renders.enumerated() {
            arguments += ["-map", "[o\(index)]", "-frames:v", "1", output + "/" + render.fileName]
        }
        return arguments
    }

    /// A filtergraph that splits the input (after `prefix`, when given) into one chain per output: chain i reads
    /// `[si]` and ends at `[oi]`, for `-map "[oi]"`.
    static func splitGraph(prefix: String?, chains: [String]) -> String {
        let labels = chains.indices.map { "[s\($0)]" }.joined()
        return "[0:v]" + (prefix.map { "\($0)," } ?? "") + "split=\(chains.count)\(labels);"
            + chains.enumerated().map { "[s\($0)]\($1)[o\($0)]" }.joined(separator: ";")
    }

    static func poster(clip: String, output: String) -> [String] {
        FFmpegPeer.common + ["-i", clip, "-vf", "thumbnail", "-frames:v", "1"] + jpegQuality + [output]
    }

    static func decodeFloor(clip: String, keyframesOnly: Bool, singleThread: Bool) -> [String] {
        FFmpegPeer.common + (singleThread ? ["-threads", "1"] : []) + (keyframesOnly ? ["-skip_frame", "nokey"] : [])
            + ["-i", clip, "-f", "null", "-"]
    }
}

/// One preview render for the ffmpeg peer: a device screen in a mode, and the filtergraph that draws it.
struct PreviewRenderSpec {
    var fileName: String
    var width: Int
    var height: Int
    var fill: Bool

    var filter: String {
        fill ? "scale=\(width):\(height):force_original_aspect_ratio=increase,crop=\(width):\(height)"
             : "scale=\(width):\(height):force_original_aspect_ratio=decrease,pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2"
    }
}
