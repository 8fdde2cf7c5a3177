import Foundation
import FrameFarmMedia

/// Writes the track's manifests from one ThumbnailTrack.
enum ThumbnailManifestFiles {
    /// What `write` wrote: the file names, the track's stream-inf lines for a multivariant playlist that
    /// reaches the track's folder through `uriPrefix` ("" beside it, "160/" from the folder of several widths),
    /// and its DASH Representation.
    struct Written {
        var files: [String] = []
        var streamInfLines: [(_ uriPrefix: String) -> String] = []
        var dash: DASHImageWriter.Representation?
    }

    static func write(track: ThumbnailTrack, directory: String, options: ThumbnailOptions, sheetBytes: [Int],
                      tiles: [Data]) throws -> Written {
        var written = Written()
        func save(_ name: String, _ text: String) throws {
            try AtomicFile.write(Data(text.utf8), to: directory + "/" + name)
            written.files.append(name)
        }
        let bandwidth = track.peakBandwidth(sheetByteCounts: sheetBytes)
        if options.manifests.contains(.vtt) { try save("thumbnails.vtt", WebVTTWriter.document(for: track)) }
        if options.manifests.contains(.hls) {
            try save("thumbnails.m3u8", HLSImagePlaylistWriter.playlist(for: track))
            written.streamInfLines.append { HLSImagePlaylistWriter.imageStreamInfLine(for: track, bandwidth: bandwidth, uri: $0 + "thumbnails.m3u8") }
            try save("thumbnails-stream-inf.txt", written.streamInfLines.last!("") + "\n")
        }
        if options.manifests.contains(.dash) {
            let representation = DASHImageWriter.Representation(track: track, bandwidth: bandwidth)
            written.dash = representation
            try save("thumbnails.mpd", DASHImageWriter.mpd(for: [representation]))
        }
        if options.manifests.contains(.iframes), !tiles.isEmpty {
            let sequence = try IFrameSequenceWriter.write(
                jpegs: tiles, width: track.tileSize.width, height: track.tileSize.height,
                times: track.thumbnails.map(\.startTime), durations: track.thumbnails.map { $0.endTime - $0.startTime },
                to: directory + "/iframes.mp4")
            written.files.append("iframes.mp4")
            try save("iframes.m3u8", IFramePlaylistWriter.playlist(initSegmentLength: sequence.initSegmentLength,
                                                                   fragments: sequence.fragments))
            written.streamInfLines.append {
                IFramePlaylistWriter.streamInfLine(fragments: sequence.fragments, resolution: track.tileSize, uri: $0 + "iframes.m3u8")
            }
            try save("iframes-stream-inf.txt", written.streamInfLines.last!("") + "\n")
        }
        return written
    }

    /// With several widths, in the thumbnails folder: `thumbnails-stream-inf.txt`, every width's stream-inf lines
    /// with URIs from there (`160/thumbnails.m3u8`), for a multivariant playlist beside it; and `thumbnails.mpd`,
    /// one image adaptation set with a Representation per width. Returns the names written.
    static func writeIndexes(folder: String, widths: [Int], tracks: [Written]) throws -> [String] {
        var names: [String] = []
        let lines = zip(widths, tracks).flatMap { width, track in track.streamInfLines.map { $0("\(width)/") } }
        if !lines.isEmpty {
            try AtomicFile.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: folder + "/thumbnails-stream-inf.txt")
            names.append("thumbnails-stream-inf.txt")
        }
        let representations = zip(widths, tracks).compactMap { width, track in
            track.dash.map { DASHImageWriter.Representation(track: $0.track, bandwidth: $0.bandwidth,
                                                            id: "thumbnails-\(width)", folder: "\(width)/") }
        }
        if !representations.isEmpty {
            try AtomicFile.write(Data(DASHImageWriter.mpd(for: representations).utf8), to: folder + "/thumbnails.mpd")
            names.append("thumbnails.mpd")
        }
        return names
    }
}
