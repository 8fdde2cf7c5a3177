import CFFmpeg
import FrameFarmCore

extension MediaFile {
    /// The audio streams a player of this input would choose from, in the file's order: every one in a file; in a
    /// multivariant HLS playlist, those of the rendition read (its program), as the same audio is listed once per
    /// rendition that uses it.
    var audioTracks: [ProbeReport.AudioTrack] {
        let all = 0..<Int(context.pointee.nb_streams)
        let indices = Self.program(of: videoStreamIndex, in: context).map { program in
            UnsafeBufferPointer(start: program.stream_index, count: Int(program.nb_stream_indexes)).map { Int($0) }.sorted()
        } ?? Array(all)
        return indices.compactMap { index in
            guard all.contains(index) else { return nil }
            let parameters = context.pointee.streams[index]!.pointee.codecpar.pointee
            guard parameters.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
            // A codec FFmpeg does not know is named by its tag in the file, where it has one ("unknown 'zzzz'").
            let codec = parameters.codec_id == AV_CODEC_ID_NONE
                ? "unknown" + (Self.fourCharacterCode(parameters.codec_tag).map { " '\($0)'" } ?? "")
                : avcodec_get_name(parameters.codec_id).map { String(cString: $0) } ?? "unknown"
            return ProbeReport.AudioTrack(
                codec: codec,
                profile: avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) },
                channels: Int(parameters.ch_layout.nb_channels), sampleRate: Int(parameters.sample_rate))
        }
    }
}
