import CFFmpeg
import FrameFarmCore

extension MediaFile {
    /// The rendition `request` picks, when `context` is a multivariant HLS playlist (a video stream per rendition;
    /// the others are discarded after the analysis). A later open of the same input (`known`) takes the stream the
    /// first one picked. Nil for other inputs (a DASH manifest's representation is picked by `DASHInput`). A request
    /// no rendition answers names those `skipped` (left out of the ladder) and why: it may be one of them.
    static func pickRendition(in context: UnsafeMutablePointer<AVFormatContext>, known: StreamAnalysis?, path: String,
                              request: RenditionRequest?, skipped: [InputError],
                              analyse: () -> Void) throws -> (stream: Int32, rendition: Rendition)? {
        guard String(cString: context.pointee.iformat.pointee.name) == "hls" else { return nil }
        func videoStreams() -> [Int32] {
            (0..<context.pointee.nb_streams).map { Int32($0) }.filter { index in
                let stream = context.pointee.streams[Int(index)]!.pointee
                return stream.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && stream.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
            }
        }
        // A later open reads the rendition the first one picked, and only it: the others are discarded before the
        // analysis, so their segments are not read again.
        if let known, known.path == path, let earlier = known.info.rendition, known.streamIndex < context.pointee.nb_streams,
           context.pointee.streams[Int(known.streamIndex)]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            for index in 0..<Int(context.pointee.nb_streams) where index != Int(known.streamIndex) {
                context.pointee.streams[index]!.pointee.discard = AVDISCARD_ALL
            }
            return (known.streamIndex, earlier)
        }
        var streams = videoStreams()
        guard streams.count > 1 else { return nil }
        func size(_ index: Int32) -> (Int, Int) {
            let parameters = context.pointee.streams[Int(index)]!.pointee.codecpar.pointee
            return (Int(parameters.width), Int(parameters.height))
        }
        // Sizes are known once the first segment of each rendition is analysed (HLS lists them in its playlist,
        // which FFmpeg does not expose).
        if streams.contains(where: { size($0).0 == 0 }) {
            analyse()
            streams = videoStreams()
        }
        let candidates = streams.map { index in
            let (width, height) = size(index)
            return Rendition.Candidate(width: width, height: height, bandwidth: variantBitrate(context, stream: index))
        }
        let choice: (index: Int, reason: String)
        do {
            choice = try (request ?? RenditionRequest(choice: .highest)).pick(candidates, leftOut: skipped.map(\.description))
        } catch {
            throw InputError.noSuchRendition(error.description)
        }
        let picked = candidates[choice.index]
        return (streams[choice.index], Rendition(index: choice.index, count: streams.count, width: picked.width,
                                                 height: picked.height, bandwidth: picked.bandwidth, reason: choice.reason))
    }

    /// A rendition's declared bits per second: the demuxer's `variant_bitrate`, on the stream or its program.
    private static func variantBitrate(_ context: UnsafeMutablePointer<AVFormatContext>, stream index: Int32) -> Int? {
        func value(_ metadata: OpaquePointer?) -> Int? {
            av_dict_get(metadata, "variant_bitrate", nil, 0).flatMap { Int(String(cString: $0.pointee.value)) }
        }
        if let own = value(context.pointee.streams[Int(index)]!.pointee.metadata) { return own }
        return program(of: index, in: context).flatMap { value($0.metadata) }
    }

    /// The program holding `stream`: FFmpeg's hls demuxer makes one per variant, numbered in the playlist's order.
    static func program(of stream: Int32, in context: UnsafeMutablePointer<AVFormatContext>) -> AVProgram? {
        for index in 0..<Int(context.pointee.nb_programs) {
            let program = context.pointee.programs[index]!.pointee
            let members = UnsafeBufferPointer(start: program.stream_index, count: Int(program.nb_stream_indexes))
            if members.contains(UInt32(stream)) { return program }
        }
        return nil
    }
}
