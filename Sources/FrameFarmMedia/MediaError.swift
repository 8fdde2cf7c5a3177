import CFFmpeg
import Glibc

/// An FFmpeg error code (a negative `AVERROR`), with names for the codes FrameFarm reacts to, in the style of
/// swift-system's `Errno`. `EAGAIN` and `EOF` from the send/receive API are loop control (`CodecStep`), not errors.
public struct FFmpegError: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `AVERROR(ENOMEM)`.
    public static let outOfMemory = FFmpegError(rawValue: -ENOMEM)
    /// `AVERROR(EINVAL)`: an argument or setting FFmpeg refuses.
    public static let invalidArgument = FFmpegError(rawValue: -EINVAL)
    /// `AVERROR_INVALIDDATA`: the data is not what its format says.
    public static let invalidData = FFmpegError(rawValue: framefarm_averror_invaliddata())
    /// `AVERROR(EAGAIN)` and `AVERROR_EOF`.
    public static let tryAgain = FFmpegError(rawValue: framefarm_averror_eagain())
    public static let endOfFile = FFmpegError(rawValue: framefarm_averror_eof())

    /// FFmpeg's own words for the code (`av_strerror`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(rawValue, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A failed call into FFmpeg, libpng or libjpeg-turbo, or a check of their data: the call's name, FFmpeg's code
/// when FFmpeg failed (nil for the other libraries, which say it in words), and the message.
public struct MediaError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let code: FFmpegError?
    public let message: String

    public init(call: String, code: FFmpegError? = nil, message: String) {
        self.call = call
        self.code = code
        self.message = message
    }

    /// A failed FFmpeg call, in FFmpeg's words.
    static func ffmpeg(_ call: String, _ code: Int32) -> MediaError {
        let error = FFmpegError(rawValue: code)
        return MediaError(call: call, code: error, message: error.description)
    }

    static func outOfMemory(_ call: String) -> MediaError { MediaError(call: call, code: .outOfMemory, message: "out of memory") }

    public var description: String { "\(call) failed: \(message)" }
}

/// Why an input cannot be used, in words a user can act on. The engine prefixes the file path.
public enum InputError: Error, CustomStringConvertible, Sendable, Equatable {
    case notFound
    case isDirectory
    case empty
    case unreadable(String)
    case notAVideo(String)
    case noVideoStream
    case tooLarge(width: Int, height: Int, maxPixels: Int)
    case noDecodableFrames
    case cutShortBeforeIndex
    /// An http(s) input's server answered with an error status (nil: FFmpeg said only 4xx or 5xx).
    case http(status: Int?, reason: String)
    /// An http(s) input's server sent nothing for `--io-timeout` seconds.
    case timedOut(seconds: Double)
    /// An http(s) input's host could not be reached, or the connection broke and retries did not mend it.
    case connectionFailed(String)
    /// An http(s) input's TLS handshake failed: most often a certificate the system does not trust.
    case tlsFailure(String)
    /// `--rendition` names no rendition of a multivariant input (the message lists those there are).
    case noSuchRendition(String)
    /// A playlist or manifest declares DRM (the system named), which FrameFarm cannot decrypt.
    case drmProtected(String)
    /// A segment (or rendition playlist) a playlist, or a DASH manifest (`inManifest`), lists could not be used, for
    /// `reason`; `unreadable` when its bytes could not be had (missing, a server's error), not bytes that are no media.
    case segmentFailed(segment: String, reason: String, inManifest: Bool = false, unreadable: Bool = false)
    /// A rendition of a multivariant playlist (its address as the playlist gives it) that cannot be read past its
    /// playlist, for `reason`: it is left out of the ladder (`LadderRepair`).
    case renditionFailed(rendition: String, reason: String)
    /// A live playlist or manifest (still growing: no `#EXT-X-ENDLIST`, or a dynamic MPD), which has no end to read.
    case livePlaylist
    /// A DASH manifest FrameFarm cannot read, for the reason given.
    case unreadableManifest(String)
    /// An HLS playlist FrameFarm cannot read, for the reason given.
    case unreadablePlaylist(String)
    /// An AES-128 segment that could not be decrypted, for the reason given.
    case decryptionFailed(String)

    /// Whether the input's bytes could not be had (no such file, a folder, a permission, a server's answer, a
    /// timeout, TLS), rather than bytes that are no video.
    public var isReadFailure: Bool {
        switch self {
        case .notFound, .isDirectory, .unreadable, .http, .timedOut, .connectionFailed, .tlsFailure: true
        case .segmentFailed(_, _, _, let unreadable): unreadable
        default: false
        }
    }

    public var description: String {
        switch self {
        case .notFound: "no such file"
        case .isDirectory: "is a directory, not a video file (--recursive walks folders for videos)"
        case .empty: "file is empty (0 bytes)"
        case .unreadable(let reason): "cannot read file: \(reason)"
        case .notAVideo(let reason): "not a video file FFmpeg can read (\(reason))"
        case .noVideoStream: "has no video stream (audio only, with or without cover art, or no streams)"
        case .tooLarge(let width, let height, let maxPixels):
            "frame size \(width)x\(height) exceeds the limit of \(maxPixels) pixels (raise it with --max-pixels)"
        case .noDecodableFrames: "no frame could be decoded (truncated or corrupt file)"
        case .cutShortBeforeIndex:
            "cut short before its index was written: an MP4/MOV with media data but no 'moov' box (an interrupted "
                + "recording or copy), so its frames cannot be located"
        case .http(let status, let reason): status.map { "HTTP \($0) \(reason)" } ?? "HTTP \(reason)"
        case .timedOut(let seconds):
            "timed out: no data from the server for \(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) s "
                + "(--io-timeout)"
        case .connectionFailed(let reason): reason
        case .tlsFailure(let reason): "TLS failure: \(reason)"
        case .noSuchRendition(let reason): reason
        case .drmProtected(let system):
            "DRM-protected (\(system)): FrameFarm reads clear streams and AES-128 ones whose key the playlist points to, "
                + "not streams that need a license server; give it the unprotected source"
        case .segmentFailed(let segment, let reason, let inManifest, _):
            "cannot read \(segment), which the \(inManifest ? "manifest" : "playlist") lists: \(reason)"
        case .renditionFailed(let rendition, let reason): "\(rendition): \(reason)"
        case .livePlaylist:
            "a live stream (an HLS playlist without #EXT-X-ENDLIST, or a dynamic DASH manifest): it has no end to read; "
                + "give the finished recording or its VOD playlist"
        case .unreadableManifest(let reason): "cannot read this DASH manifest: \(reason)"
        case .unreadablePlaylist(let reason): "cannot read this HLS playlist: \(reason)"
        case .decryptionFailed(let reason): "cannot decrypt it: \(reason)"
        }
    }
}

/// Throws a MediaError for a negative FFmpeg return code; returns the (non-negative) code otherwise.
@discardableResult
func check(_ call: String, _ code: Int32) throws -> Int32 {
    if code < 0 { throw MediaError.ffmpeg(call, code) }
    return code
}

/// EAGAIN and EOF are loop control in FFmpeg's send/receive API, not errors.
enum CodecStep {
    case ready, needsInput, endOfStream

    static func of(_ call: String, _ code: Int32) throws -> CodecStep {
        if code == framefarm_averror_eagain() { return .needsInput }
        if code == framefarm_averror_eof() { return .endOfStream }
        try check(call, code)
        return .ready
    }
}

extension InputError {
    /// This failure as a DASH manifest's: a segment failure says the manifest lists the segment (FrameFarm reads a
    /// manifest's segments as a playlist of them).
    var inManifest: InputError {
        guard case .segmentFailed(let segment, let reason, _, let unreadable) = self else { return self }
        return .segmentFailed(segment: segment, reason: reason, inManifest: true, unreadable: unreadable)
    }
}
