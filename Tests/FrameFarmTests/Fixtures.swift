import Foundation
import FrameFarm
import FrameFarmSamples

/// A temporary folder per test, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "framefarm-engine-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ data: Data) -> String {
        let target = file(name)
        precondition(FileManager.default.createFile(atPath: target, contents: data), "cannot write \(target)")
        return target
    }
}

/// A small sample video (ultrafast x264) made by the engine's own `sample` path.
func makeSample(in directory: TemporaryDirectory, name: String = "sample.mp4",
                _ configure: (inout SampleOptions) -> Void = { _ in }) throws -> String {
    var options = SampleOptions()
    options.size = PixelSize(width: 320, height: 180)
    options.durationSeconds = 2
    options.preset = "ultrafast"
    configure(&options)
    let path = directory.file(name)
    try SampleVideoWriter.write(to: path, options: options)
    return path
}

/// `name` in `directory`: a sample of `videoSeconds` (one keyframe every `keyframeInterval` s) whose audio (a sine,
/// `audio` codec) starts `leadSeconds` before it, as a file whose audio starts first has it.
func makeSampleWithAudioLead(in directory: TemporaryDirectory, name: String, videoSeconds: Double,
                             keyframeInterval: Double, leadSeconds: Double, audio: String) throws -> String {
    let video = try makeSample(in: directory, name: "video-\(name).mp4") {
        $0.durationSeconds = videoSeconds
        $0.keyframeIntervalSeconds = keyframeInterval
    }
    let path = directory.file(name)
    try KeyframeSeekTests.ffmpeg(["-f", "lavfi", "-i", "sine=d=\(videoSeconds + leadSeconds)", "-itsoffset", "\(leadSeconds)",
                                  "-i", video, "-map", "0:a", "-map", "1:v", "-c:v", "copy", "-c:a", audio, path])
    return path
}

/// One second of 8 kHz mono silence as a WAV file, with `coverArt` as a music file has it: a real media file with
/// no video stream (FFmpeg shows the cover as a video stream marked an attached picture).
func wavFile(coverArt jpeg: Data? = nil) -> Data {
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    let samples = 8000
    // Cover art as a music file carries it: an ID3v2.3 tag with a front-cover APIC frame, in an 'id3 ' chunk.
    let tag = jpeg.map { jpeg -> Data in
        let apic = Data([0]) + Data("image/jpeg".utf8) + Data([0, 3, 0]) + jpeg
        let frame = Data("APIC".utf8) + withUnsafeBytes(of: UInt32(apic.count).bigEndian) { Data($0) } + Data([0, 0]) + apic
        let size = frame.count  // synchsafe: 7 bits a byte
        var tag = Data("ID3".utf8) + Data([3, 0, 0]) + Data((0..<4).reversed().map { UInt8(size >> (7 * $0) & 0x7F) }) + frame
        if tag.count % 2 == 1 { tag.append(0) }
        return tag
    } ?? Data()
    data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + samples * 2 + (tag.isEmpty ? 0 : 8 + tag.count)))
    data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
    append(UInt32(8000)); append(UInt32(16000)); append(UInt16(2)); append(UInt16(16))
    data.append(contentsOf: Array("data".utf8)); append(UInt32(samples * 2))
    data.append(Data(count: samples * 2))
    if !tag.isEmpty {
        data.append(contentsOf: Array("id3 ".utf8)); append(UInt32(tag.count))
        data.append(tag)
    }
    return data
}
