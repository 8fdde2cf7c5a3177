import CFFmpeg
import Foundation
import FrameFarmCore

/// An input opened by `avformat_open_input`, and what FFmpeg reads it through: a file; a remote input's
/// `RemoteReader`; for a DASH manifest (`DASHInput`), its representation's one file or an HLS media playlist of its
/// segments in memory; for part of an HLS playlist (`SegmentedPlaylist`), that part's text in memory. The readers
/// must outlive the context, which `MediaFile` closes first.
struct OpenedInput {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// An http(s) input's reader (FFmpeg reads it through this, in bounded range requests); nil for a file.
    let remoteReader: RemoteReader?
    /// A playlist's text (part of an HLS playlist, a DASH representation's segments), which FFmpeg reads through this.
    private let playlistReader: MemoryReader?
    /// For a DASH representation of segments, the playlist of them, sought by opening it again.
    let segmentedPlaylist: SegmentedPlaylist?
    /// What the nested opener files the failures of the segments it opens under (see `RemoteReader.takeNestedFailure`).
    let segmentParent: String
    /// Whether the input is a DASH manifest read by `DASHInput`.
    let isDASH: Bool
    /// Whether the segments FFmpeg opens go through `RemoteReader`'s nested opener (a playlist's, a remote input's).
    let watchesSegments: Bool
    /// The DASH representation read, when the manifest has several.
    let rendition: Rendition?

    /// Opens `path` (a file or a remote input's name); for a DASH manifest, the representation an earlier open picked
    /// (`known`) or `request` picks.
    init(path: String, request: RenditionRequest?, known: StreamAnalysis?) throws {
        var pathReader = RemoteInput.isRemote(path) ? try RemoteReader(name: path) : nil
        let dash = DASHInput.isManifest(path, reader: pathReader)
            ? try DASHInput.open(path, reader: pathReader, request: request, known: known?.path == path ? known?.info.rendition : nil)
            : nil
        // A playlist's addresses are relative to where its URL's redirects led, learnt with its first bytes.
        if let pathReader, pathReader.redirectedName == nil { _ = pathReader.peek(1) }
        let base = pathReader?.base ?? path
        segmentParent = base
        isDASH = dash != nil
        rendition = dash?.rendition
        if let skipped = dash?.skipped, !skipped.isEmpty {
            NestedOpener.skippedRenditions.withLock { $0[base, default: []] += skipped }
        }
        if case .playlist(let text, let periods) = dash?.source {
            (context, playlistReader) = try Self.openPlaylist(text, name: base, isManifest: true)
            remoteReader = nil
            watchesSegments = true
            segmentedPlaylist = HLSMediaPlaylist(text).map {
                SegmentedPlaylist(name: base, playlist: $0, isManifest: true, periods: periods)
            }
            return
        }
        // A ladder an earlier open found renditions of that cannot be read: without them, from its text.
        if dash == nil, let ladder = LadderRepair.known(path) {
            (context, playlistReader) = try Self.openPlaylist(ladder.text, name: base, isManifest: false)
            NestedOpener.skippedRenditions.withLock { $0[base, default: []] += ladder.skipped }
            remoteReader = nil
            watchesSegments = true
            segmentedPlaylist = nil
            return
        }
        playlistReader = nil
        segmentedPlaylist = nil
        // A one-file representation's manifest reader (and its connection) is done with once the manifest is read.
        if dash != nil { pathReader = nil }
        // What FFmpeg opens: the input, or for a DASH manifest its representation's one file.
        var source = base, opened: UnsafeMutablePointer<AVFormatContext>?
        if case .file(let file) = dash?.source { source = file }
        if RemoteInput.isRemote(source) {
            remoteReader = dash == nil ? pathReader : try RemoteReader(name: source)
            // Without a context of its own, avformat_open_input would read the name with FFmpeg's http client.
            opened = try Self.customContext(reading: remoteReader!.context)
        } else {
            remoteReader = nil
            do { try Self.checkReadable(source) } catch let error as InputError where dash != nil {
                throw InputError.segmentFailed(segment: source, reason: error.description, inManifest: true,
                                               unreadable: error.isReadFailure)
            }
            // A local playlist's segments are opened through the nested opener too, which notes those missing.
            if PlaylistScan.isPlaylist(source) {
                guard let context = avformat_alloc_context() else { throw MediaError.outOfMemory("avformat_alloc_context") }
                RemoteReader.installNestedOpener(on: context)
                opened = context
            }
        }
        watchesSegments = opened != nil
        var options = Self.openOptions(playlist: opened != nil && remoteReader == nil)
        defer { av_dict_free(&options) }
        // The name, not a URL, for a remote input: FFmpeg reads it through `remoteReader` and logs the name.
        let openCode = avformat_open_input(&opened, remoteReader == nil ? ForeignNames.openable(source) : source, nil, &options)
        guard openCode >= 0, let opened else {
            if let failure = remoteReader?.failure {
                throw dash == nil ? failure : InputError.segmentFailed(segment: source, reason: failure.description, inManifest: true,
                                                                       unreadable: failure.isReadFailure)
            }
            if let failure = RemoteReader.takeNestedFailure(within: base) { throw failure }
            // A ladder of one rendition, whose playlist could not be read.
            if let skipped = NestedOpener.takeSkippedRenditions(within: base).first { throw skipped }
            if remoteReader == nil, MP4Boxes.isCutShortBeforeIndex(path: source) { throw InputError.cutShortBeforeIndex }
            throw Self.openFailure(openCode, playlist: remoteReader == nil && PlaylistScan.isPlaylist(source))
        }
        context = opened
    }

    /// Opens some segments of a media playlist as a playlist of their own (see `SegmentedPlaylist`).
    init(part: PlaylistPart) throws {
        let playlist = part.playlist
        do {
            (context, playlistReader) = try Self.openPlaylist(
                playlist.playlist.text(from: part.segments.lowerBound, to: part.segments.upperBound),
                name: playlist.name, isManifest: playlist.isManifest)
        } catch InputError.notAVideo(let reason) {
            // FFmpeg opened the part's first segment and could not read it.
            throw part.failure("not a media segment FFmpeg can read (\(reason))")
        } catch InputError.unreadablePlaylist, InputError.unreadableManifest {
            throw part.failure("it is " + Self.notASegmentFormat)
        }
        remoteReader = nil
        segmentParent = playlist.name
        isDASH = playlist.isManifest
        watchesSegments = true
        rendition = nil
        segmentedPlaylist = nil
    }

    /// An HLS media playlist's `text`, read from memory by FFmpeg's hls demuxer, what it names resolved against `name`
    /// and opened through the nested opener. The segments may have any extension (`.webm`, `.chk`, none): those of
    /// a DASH manifest were checked by `DASHInput`, and part of a playlist opened before.
    private static func openPlaylist(_ text: String, name: String,
                                     isManifest: Bool) throws -> (UnsafeMutablePointer<AVFormatContext>, MemoryReader) {
        let reader = try MemoryReader(Data(text.utf8))
        var opened: UnsafeMutablePointer<AVFormatContext>? = try customContext(reading: reader.context)
        var options = openOptions(playlist: true)
        defer { av_dict_free(&options) }
        let code = avformat_open_input(&opened, name, av_find_input_format("hls"), &options)
        guard code >= 0, let opened else {
            if let failure = RemoteReader.takeNestedFailure(within: name) { throw isManifest ? failure.inManifest : failure }
            throw openFailure(code, playlist: true, manifest: isManifest)
        }
        return (opened, reader)
    }

    /// HLS options (other formats ignore them). A playlist, local or remote, that names http(s) segments would
    /// otherwise reuse one http connection for them, which only FFmpeg's own http client can (on the nested opener's
    /// readers FFmpeg 5.1 aborted the process). What a playlist may name is checked by the nested opener
    /// (a playlist read over http(s) names http(s) URLs only) and by `DASHInput` (a remote manifest likewise), not by
    /// FFmpeg's list of media extensions, which leaves out AES-128 keys (`.key`, `data:` URIs) and addresses with a
    /// query. For a playlist on this machine (`playlist`), what its segments may be read as is limited instead to
    /// the formats segments come in: FFmpeg would read any file it names, a text file as ANSI art whose frames
    /// show the text, which is how a crafted playlist leaks a server's files into thumbnails.
    private static func openOptions(playlist: Bool = false) -> OpaquePointer? {
        var options: OpaquePointer?
        av_dict_set(&options, "http_persistent", "0", 0)
        av_dict_set(&options, "allowed_extensions", "ALL", 0)
        av_dict_set(&options, "allowed_segment_extensions", "ALL", 0)
        av_dict_set(&options, "extension_picky", "0", 0)
        // MPEG-TS, fragmented MP4 (FFmpeg's "mov,mp4,..."), WebM (a DASH representation's), packed audio, subtitles.
        if playlist { av_dict_set(&options, "format_whitelist", "hls,mpegts,mov,matroska,aac,mp3,ac3,eac3,webvtt", 0) }
        return options
    }

    /// Why `avformat_open_input` failed with `code`; for a playlist on this machine, EINVAL is a first segment in a
    /// format outside `openOptions`' list.
    private static func openFailure(_ code: Int32, playlist: Bool, manifest: Bool = false) -> InputError {
        guard playlist, code == -EINVAL else { return .notAVideo(MediaError.ffmpeg("avformat_open_input", code).message) }
        let reason = "a segment it lists is " + notASegmentFormat
        return manifest ? .unreadableManifest(reason) : .unreadablePlaylist(reason)
    }

    private static let notASegmentFormat = "not in a format segments come in (\(SegmentFormat.names))"

    /// A format context that reads through `io` (a reader of ours) and opens what a playlist names through
    /// `RemoteReader`'s nested opener.
    private static func customContext(reading io: UnsafeMutablePointer<AVIOContext>) throws -> UnsafeMutablePointer<AVFormatContext> {
        guard let context = avformat_alloc_context() else { throw MediaError.outOfMemory("avformat_alloc_context") }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        RemoteReader.installNestedOpener(on: context)
        return context
    }

    /// Refuses a named pipe or a socket before anything opens it: opening a pipe waits for a writer, so a FIFO in
    /// a library held up its whole batch for good. (FrameFarm seeks in its inputs; a pipe cannot be sought.)
    static func checkNotAPipe(_ path: String) throws {
        var status = stat()
        guard stat(ForeignNames.openable(path), &status) == 0 else { return }
        switch status.st_mode & S_IFMT {
        case S_IFIFO: throw InputError.unreadable("a named pipe (FIFO), not a file: FrameFarm reads files it can seek in")
        case S_IFSOCK: throw InputError.unreadable("a socket, not a file")
        default: return
        }
    }

    /// The renditions of a multivariant playlist whose playlists could not be read (FFmpeg left them out), once.
    func takeSkippedRenditions() -> [InputError] { NestedOpener.takeSkippedRenditions(within: segmentParent) }

    /// Throws what the nested opener noted of a segment or rendition playlist it could not open, once: FFmpeg's
    /// demuxers skip such a part and go on.
    func throwNestedFailure() throws {
        guard watchesSegments, let failure = RemoteReader.takeNestedFailure(within: segmentParent) else { return }
        throw isDASH ? failure.inManifest : failure
    }

    private static func checkReadable(_ name: String) throws {
        let path = ForeignNames.openable(name)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            // A link that leads nowhere is not a file that is missing: say which.
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                let loops = realpath(path, nil).map { free($0); return false } ?? (errno == ELOOP)
                throw InputError.unreadable(loops ? "a symbolic link that loops (\(target))"
                                                  : "a symbolic link to \(target), which does not exist")
            }
            throw InputError.notFound
        }
        if isDirectory.boolValue { throw InputError.isDirectory }
        guard FileManager.default.isReadableFile(atPath: path) else { throw InputError.unreadable("permission denied") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 { throw InputError.empty }
    }
}
