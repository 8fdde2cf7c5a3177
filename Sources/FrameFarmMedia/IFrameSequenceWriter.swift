import CFFmpeg
import Foundation
import FrameFarmCore

/// Where the parts of a written I-frame file lie: what `IFramePlaylistWriter.playlist` needs.
public struct IFrameSequence: Sendable, Hashable {
    /// Bytes `0..<initSegmentLength` (ftyp + moov) are the init segment, the playlist's `EXT-X-MAP` byte range.
    public var initSegmentLength: Int
    /// One per input JPEG, in order: its moof + mdat byte range, presentation time and duration.
    public var fragments: [IFrameFragment]

    public init(initSegmentLength: Int, fragments: [IFrameFragment]) {
        self.initSegmentLength = initSegmentLength
        self.fragments = fragments
    }
}

/// Writes the fragmented MP4 of an Apple "I-frame image sequence": one MJPEG track, one JPEG sample per fragment.
///
/// libavformat's mp4 muxer describes JPEG the MPEG-4 way, a `mp4v` sample entry whose `esds` has object type
/// 0x6C (ISO/IEC 10918-1); it refuses the `mjpg` entry that Apple's CODECS table names (only its QuickTime muxer
/// writes that). The HLS muxer is not used: 5.1 writes `0@0` byte ranges for MJPEG I-frames.
public enum IFrameSequenceWriter {
    /// The media timescale: whole ticks for milliseconds and for common frame rates.
    static let timescale = 90_000

    /// Writes `jpegs` (each a complete JPEG of `width` x `height`), shown from `times` (seconds, strictly
    /// increasing, from 0 up) for `durations` (seconds), to `path` atomically (a temporary file in the same folder,
    /// then a rename; nothing is left under either name on failure). JPEG bytes are stored as they are.
    ///
    /// In the file a sample lasts until the next one's time (the last one `durations.last`); the returned fragments
    /// carry `times` and `durations` as given, for the playlist's `EXTINF`. Errors are MediaError naming the failing
    /// call. Thread-safe: each call owns its muxer.
    public static func write(jpegs: [Data], width: Int, height: Int, times: [Double], durations: [Double],
                             to path: String) throws -> IFrameSequence {
        try validate(jpegs: jpegs, width: width, height: height, times: times, durations: durations)
        let temporary = AtomicFile.temporaryPath(for: path)
        do {
            let muxer = try IFrameMuxer(path: temporary, width: width, height: height)
            for index in jpegs.indices {
                try muxer.write(jpegs[index], time: times[index], duration: durations[index])
            }
            try muxer.finish()
            let sequence = try layout(of: Data(contentsOf: URL(fileURLWithPath: temporary), options: .alwaysMapped),
                                      jpegs: jpegs, times: times, durations: durations)
            try AtomicFile.commit(temporary, to: path)
            return sequence
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    private static func validate(jpegs: [Data], width: Int, height: Int, times: [Double],
                                 durations: [Double]) throws {
        func invalid(_ message: String) -> MediaError {
            MediaError(call: "IFrameSequenceWriter.write", code: .invalidArgument, message: message)
        }
        guard !jpegs.isEmpty, jpegs.count == times.count, jpegs.count == durations.count else {
            throw invalid("need one time and one duration per JPEG, and at least one JPEG "
                          + "(\(jpegs.count) JPEGs, \(times.count) times, \(durations.count) durations)")
        }
        guard width > 0, height > 0, width <= UInt16.max, height <= UInt16.max else {
            throw invalid("size \(width)x\(height) is not a JPEG size")
        }
        for (index, jpeg) in jpegs.enumerated() {
            guard jpeg.starts(with: [0xFF, 0xD8]), jpeg.suffix(2).elementsEqual([0xFF, 0xD9]) else {
                throw invalid("input \(index) is not a complete JPEG (SOI ... EOI)")
            }
        }
        guard times.allSatisfy({ $0.isFinite && $0 >= 0 }), durations.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            throw invalid("times must be finite and non-negative, durations finite and positive")
        }
        let ticks = times.map { IFrameMuxer.ticks($0) }
        guard zip(ticks, ticks.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw invalid("times must increase (by at least 1/\(timescale) s)")
        }
    }

    /// Byte ranges from the written file's top-level boxes: ftyp, moov, then one moof + mdat per JPEG, then
    /// optionally mfra. Anything else, or an mdat that is not exactly its JPEG's size, means the muxer did not
    /// write one sample per fragment.
    static func layout(of file: Data, jpegs: [Data], times: [Double], durations: [Double]) throws -> IFrameSequence {
        func unexpected(_ message: String) -> MediaError {
            MediaError(call: "IFrameSequenceWriter.layout", code: .invalidData,
                       message: message)
        }
        let boxes = try MP4Boxes.sequence(in: file)
        guard boxes.count >= 2, boxes[0].type == "ftyp", boxes[1].type == "moov" else {
            throw unexpected("file does not start with ftyp, moov: \(boxes.prefix(2).map(\.type))")
        }
        var fragments: [IFrameFragment] = []
        var index = 2
        while index + 1 < boxes.count, boxes[index].type == "moof", boxes[index + 1].type == "mdat" {
            let (moof, mdat) = (boxes[index], boxes[index + 1])
            let sample = fragments.count
            guard sample < jpegs.count, mdat.payloadRange.count == jpegs[sample].count else {
                throw unexpected("fragment \(sample) holds \(mdat.payloadRange.count) bytes, not one JPEG")
            }
            fragments.append(IFrameFragment(time: times[sample], duration: durations[sample],
                                            byteOffset: moof.offset, byteLength: mdat.end - moof.offset))
            index += 2
        }
        let trailing = boxes[index...].map(\.type)
        guard fragments.count == jpegs.count, trailing.allSatisfy({ $0 == "mfra" }) else {
            throw unexpected("\(fragments.count) moof+mdat pairs for \(jpegs.count) JPEGs, then \(trailing)")
        }
        return IFrameSequence(initSegmentLength: boxes[1].end, fragments: fragments)
    }
}

/// Owns the mp4 muxer (AVFormatContext and its file) of one I-frame sequence. Not thread-safe.
final class IFrameMuxer {
    /// `frag_every_frame` closes a fragment after each sample; `empty_moov` keeps samples out of the init segment;
    /// `default_base_moof` makes each fragment self-contained (data offsets relative to its moof), as HLS byte
    /// ranges need; `frag_discont` with `avoid_negative_ts=disabled` keeps the first tfdt at the first time instead
    /// of shifting the sequence to start at 0.
    private static let options = [
        "movflags": "frag_every_frame+empty_moov+default_base_moof+frag_discont",
        "video_track_timescale": String(IFrameSequenceWriter.timescale),
        "avoid_negative_ts": "disabled",
    ]
    private let output: UnsafeMutablePointer<AVFormatContext>
    private let stream: UnsafeMutablePointer<AVStream>
    private let packet = Packet()

    init(path: String, width: Int, height: Int) throws {
        FFmpegLog.configured
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check("avformat_alloc_output_context2", avformat_alloc_output_context2(&context, nil, "mp4", path))
        guard let context, let newStream = avformat_new_stream(context, nil) else {
            avformat_free_context(context)
            throw MediaError.outOfMemory("avformat_new_stream")
        }
        output = context
        stream = newStream
        try open(path: path, width: width, height: height)
    }

    deinit {
        if output.pointee.pb != nil { avio_closep(&output.pointee.pb) }
        avformat_free_context(output)
    }

    static func ticks(_ seconds: Double) -> Int64 {
        Int64((seconds * Double(IFrameSequenceWriter.timescale)).rounded())
    }

    private func open(path: String, width: Int, height: Int) throws {
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = AV_CODEC_ID_MJPEG
        parameters.pointee.width = Int32(width)
        parameters.pointee.height = Int32(height)
        stream.pointee.time_base = AVRational(num: 1, den: Int32(IFrameSequenceWriter.timescale))
        try check("avio_open", avio_open(&output.pointee.pb, path, AVIO_FLAG_WRITE))
        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        for (key, value) in IFrameMuxer.options { av_dict_set(&dictionary, key, value, 0) }
        try check("avformat_write_header", avformat_write_header(output, &dictionary))
        // An option left in the dictionary is one this libavformat does not know: the layout would be wrong.
        if let unused = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw MediaError(call: "avformat_write_header", code: .invalidArgument,
                             message: "mp4 muxer does not accept option \(String(cString: unused.pointee.key))")
        }
        let timeBase = stream.pointee.time_base
        guard timeBase.num == 1, timeBase.den == Int32(IFrameSequenceWriter.timescale) else {
            throw MediaError(call: "avformat_write_header", code: .invalidArgument,
                             message: "mp4 muxer chose time base \(timeBase.num)/\(timeBase.den)")
        }
    }

    /// Muxes one JPEG as a key frame at `time` seconds.
    func write(_ jpeg: Data, time: Double, duration: Double) throws {
        defer { packet.unreference() }
        try check("av_new_packet", av_new_packet(packet.pointer, Int32(jpeg.count)))
        jpeg.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(packet.pointer.pointee.data!).copyMemory(from: bytes.baseAddress!,
                                                                            byteCount: bytes.count)
        }
        packet.pointer.pointee.pts = IFrameMuxer.ticks(time)
        packet.pointer.pointee.dts = IFrameMuxer.ticks(time)
        packet.pointer.pointee.duration = IFrameMuxer.ticks(duration)
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        packet.pointer.pointee.stream_index = stream.pointee.index
        try check("av_write_frame", av_write_frame(output, packet.pointer))
    }

    /// Writes the last fragment and the trailer, and closes the file.
    func finish() throws {
        try check("av_write_trailer", av_write_trailer(output))
        try check("avio_closep", avio_closep(&output.pointee.pb))
    }
}
