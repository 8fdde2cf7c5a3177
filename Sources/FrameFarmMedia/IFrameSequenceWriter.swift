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

/// Writes the fragmented MP4 of an Apple "I-frame image sequence": one JPEG track, one JPEG sample per fragment.
///
/// The track's sample entry is `mjpg`, the four-character code Apple's HLS authoring specification gives JPEG
/// I-frame image sequences and the `CODECS` value the stream line declares (hls.js takes image I-frame variants by
/// it). libavformat's mp4 muxer cannot write that entry (it writes `mp4v` with object type 0x6C) and its mov muxer
/// adds QuickTime boxes a fragmented MP4 does not need, so the boxes are written here: ISO/IEC 14496-12's
/// ftyp + moov (with mvex) as the init segment, then per image a moof (mfhd, traf with tfhd
/// default-base-is-moof, tfdt, trun) and an mdat holding the JPEG as it is.
public enum IFrameSequenceWriter {
    /// The media timescale: whole ticks for milliseconds and for common frame rates.
    static let timescale = 90_000
    static let trackID: UInt32 = 1

    /// Writes `jpegs` (each a complete JPEG of `width` x `height`), shown from `times` (seconds, strictly
    /// increasing, from 0 up) for `durations` (seconds), to `path` atomically (nothing is left under either name
    /// on failure). JPEG bytes are stored as they are.
    ///
    /// In the file a sample lasts until the next one's time (the last one `durations.last`); the returned fragments
    /// carry `times` and `durations` as given, for the playlist's `EXTINF`. Thread-safe.
    public static func write(jpegs: [Data], width: Int, height: Int, times: [Double], durations: [Double],
                             to path: String) throws -> IFrameSequence {
        try validate(jpegs: jpegs, width: width, height: height, times: times, durations: durations)
        let ticks = times.map(Self.ticks)
        var file = MP4BoxWriter()
        writeInitSegment(into: &file, width: width, height: height)
        let initSegmentLength = file.data.count
        var fragments: [IFrameFragment] = []
        for index in jpegs.indices {
            let start = file.data.count
            let duration = index + 1 < ticks.count ? ticks[index + 1] - ticks[index] : max(1, Self.ticks(durations[index]))
            writeFragment(jpegs[index], number: UInt32(index + 1), decodeTime: UInt64(ticks[index]),
                          duration: UInt32(clamping: duration), into: &file)
            fragments.append(IFrameFragment(time: times[index], duration: durations[index], byteOffset: start,
                                            byteLength: file.data.count - start))
        }
        try AtomicFile.write(file.data, to: path)
        return IFrameSequence(initSegmentLength: initSegmentLength, fragments: fragments)
    }

    static func ticks(_ seconds: Double) -> Int64 { Int64((seconds * Double(timescale)).rounded()) }

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
            guard jpeg.count < Int(UInt32.max) - 1024 else { throw invalid("input \(index) is larger than 4 GB") }
        }
        guard times.allSatisfy({ $0.isFinite && $0 >= 0 }), durations.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            throw invalid("times must be finite and non-negative, durations finite and positive")
        }
        let ticks = times.map(Self.ticks)
        guard zip(ticks, ticks.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw invalid("times must increase (by at least 1/\(timescale) s)")
        }
    }

    /// ftyp and a moov that describes the track and leaves its samples to the fragments (empty sample tables,
    /// mvex/trex).
    private static func writeInitSegment(into file: inout MP4BoxWriter, width: Int, height: Int) {
        file.box("ftyp") { ftyp in
            ftyp.fourCC("iso6")
            ftyp.uint32(0)
            for brand in ["iso6", "iso5", "mp41"] { ftyp.fourCC(brand) }
        }
        file.box("moov") { moov in
            moov.fullBox("mvhd") { mvhd in
                mvhd.zeros(8)  // creation and modification times
                mvhd.uint32(1000)  // movie timescale
                mvhd.uint32(0)  // duration: in the fragments
                mvhd.uint32(0x0001_0000)  // rate 1.0
                mvhd.uint16(0x0100)  // volume 1.0
                mvhd.zeros(10)
                mvhd.unityMatrix()
                mvhd.zeros(24)
                mvhd.uint32(trackID + 1)  // next track ID
            }
            moov.box("trak") { trak in
                trak.fullBox("tkhd", flags: 0x3) { tkhd in  // enabled, in the movie
                    tkhd.zeros(8)
                    tkhd.uint32(trackID)
                    tkhd.zeros(4 + 4 + 8)  // reserved, duration, reserved
                    tkhd.zeros(2 + 2 + 2 + 2)  // layer, alternate group, volume, reserved
                    tkhd.unityMatrix()
                    tkhd.uint32(UInt32(width) << 16)
                    tkhd.uint32(UInt32(height) << 16)
                }
                trak.box("mdia") { mdia in
                    mdia.fullBox("mdhd") { mdhd in
                        mdhd.zeros(8)
                        mdhd.uint32(UInt32(timescale))
                        mdhd.uint32(0)
                        mdhd.uint16(0x55C4)  // language "und", packed ISO 639-2/T
                        mdhd.uint16(0)
                    }
                    mdia.fullBox("hdlr") { hdlr in
                        hdlr.uint32(0)
                        hdlr.fourCC("vide")
                        hdlr.zeros(12)
                        hdlr.bytes(Data("FrameFarm I-frame images\0".utf8))
                    }
                    mdia.box("minf") { minf in writeMediaInformation(into: &minf, width: width, height: height) }
                }
            }
            moov.box("mvex") { mvex in
                mvex.fullBox("trex") { trex in
                    trex.uint32(trackID)
                    trex.uint32(1)  // sample description index
                    trex.zeros(12)  // default duration, size and flags: each trun says its own
                }
            }
        }
    }

    private static func writeMediaInformation(into minf: inout MP4BoxWriter, width: Int, height: Int) {
        minf.fullBox("vmhd", flags: 1) { $0.zeros(8) }
        minf.box("dinf") { dinf in
            dinf.fullBox("dref") { dref in
                dref.uint32(1)
                dref.fullBox("url ", flags: 1) { _ in }  // the media is in this file
            }
        }
        minf.box("stbl") { stbl in
            stbl.fullBox("stsd") { stsd in
                stsd.uint32(1)
                stsd.box("mjpg") { entry in writeSampleEntry(into: &entry, width: width, height: height) }
            }
            stbl.fullBox("stts") { $0.uint32(0) }
            stbl.fullBox("stsc") { $0.uint32(0) }
            stbl.fullBox("stsz") { $0.zeros(8) }  // sample size, sample count
            stbl.fullBox("stco") { $0.uint32(0) }
        }
    }

    /// A VisualSampleEntry. colr says what a JFIF JPEG of FrameFarm's is: sRGB (BT.709 primaries, the sRGB
    /// transfer) in BT.601 full-range YCbCr; pasp says its pixels are square.
    private static func writeSampleEntry(into entry: inout MP4BoxWriter, width: Int, height: Int) {
        entry.zeros(6)
        entry.uint16(1)  // data reference index
        entry.zeros(16)
        entry.uint16(UInt16(width))
        entry.uint16(UInt16(height))
        entry.uint32(0x0048_0000)  // 72 dpi
        entry.uint32(0x0048_0000)
        entry.uint32(0)
        entry.uint16(1)  // frame count
        let name = Data("JPEG".utf8)
        entry.uint8(UInt8(name.count))
        entry.bytes(name)
        entry.zeros(31 - name.count)
        entry.uint16(0x0018)  // depth: colour, no alpha
        entry.uint16(0xFFFF)
        entry.box("colr") { colr in
            colr.fourCC("nclx")
            colr.uint16(1)  // primaries BT.709
            colr.uint16(13)  // transfer IEC 61966-2-1 (sRGB)
            colr.uint16(6)  // matrix BT.601
            colr.uint8(0x80)  // full range
        }
        entry.box("pasp") { pasp in
            pasp.uint32(1)
            pasp.uint32(1)
        }
    }

    /// One image: a moof describing one key sample at `decodeTime`, then the mdat holding it.
    private static func writeFragment(_ jpeg: Data, number: UInt32, decodeTime: UInt64, duration: UInt32,
                                      into file: inout MP4BoxWriter) {
        func moof(dataOffset: UInt32) -> Data {
            var writer = MP4BoxWriter()
            writer.box("moof") { moof in
                moof.fullBox("mfhd") { $0.uint32(number) }
                moof.box("traf") { traf in
                    traf.fullBox("tfhd", flags: 0x02_0000) { $0.uint32(trackID) }  // default-base-is-moof
                    traf.fullBox("tfdt", version: 1) { $0.uint64(decodeTime) }
                    // data offset, first sample flags, sample duration and size present
                    traf.fullBox("trun", flags: 0x00_0001 | 0x00_0004 | 0x00_0100 | 0x00_0200) { trun in
                        trun.uint32(1)
                        trun.uint32(dataOffset)
                        trun.uint32(0x0200_0000)  // depends on no other sample; a sync sample
                        trun.uint32(duration)
                        trun.uint32(UInt32(jpeg.count))
                    }
                }
            }
            return writer.data
        }
        // The data offset counts from the moof's first byte to the mdat's payload.
        let size = moof(dataOffset: 0).count
        file.bytes(moof(dataOffset: UInt32(size + 8)))
        file.box("mdat") { $0.bytes(jpeg) }
    }
}
