import CFFmpeg
import Foundation
import FrameFarmCore

/// An http(s) input as FFmpeg reads it: an AVIOContext whose reads are range GETs of just the bytes asked for.
/// FFmpeg's own http client asks for everything from the seek point to the end of the file (`Range: bytes=N-`),
/// so each seek of a keyframe track leaves the server pushing megabytes into the socket that are thrown away:
/// a keyframe track of a 10-minute 1080p file moved 1.8 times the file. Here each request is bounded: what the
/// demuxer asks for (a whole packet, when it reads one) and at least 64 KiB after a seek, doubling while reads go
/// on where the last one ended, up to 8 MiB.
///
/// A connection dropped mid-body keeps what came and goes on from there; resets and 5xx answers are retried
/// (`RangeClient`). The first failure that retries do not mend is kept in `failure`, and `MediaFile` throws it
/// in place of FFmpeg's code. Not thread-safe: one per `MediaFile`.
final class RemoteReader {
    static let noRangesMessage = "the server does not answer range requests (HTTP 200 to a Range GET), and the file is "
        + "larger than the \(wholeObjectLimit >> 20) MiB FrameFarm reads whole: it reads only the parts of a video it needs"
    /// From a server that ignores ranges (a plain static server), an object up to this size is read whole, once: a
    /// playlist, its segments, a short clip.
    static let wholeObjectLimit = 32 << 20
    static let smallestRequest = 64 * 1024
    static let largestRequest = 8 * 1024 * 1024
    /// FFmpeg's own buffer, between the demuxer and `read`.
    private static let ioBufferSize = 64 * 1024

    let name: String
    /// The name of the URL redirects led to, once a request has been answered (see `base`).
    private(set) var redirectedName: String?
    private let client: RangeClient
    private(set) var failure: InputError?
    /// The object's size, from the first answer's `Content-Range`.
    private(set) var size: Int?
    private var etag: String?
    private var position = 0
    private var chunk: [UInt8] = []
    private var chunkStart = 0
    private var requestSize = RemoteReader.smallestRequest
    /// Answers cut off under `tinyAnswer` bytes, in a row; `mostTinyAnswersInARow` fails the input.
    private var tinyAnswersInARow = 0
    static let tinyAnswer = 4 * 1024
    static let mostTinyAnswersInARow = 8
    /// The AVIOContext FFmpeg reads through; freed with the reader.
    private(set) var context: UnsafeMutablePointer<AVIOContext>!

    init(name: String) throws(InputError) {
        self.name = name
        client = try RangeClient(name: name)
        client.keepsWholeObjects = true
        guard let buffer = av_malloc(Self.ioBufferSize)?.assumingMemoryBound(to: UInt8.self),
              let context = avio_alloc_context(buffer, Int32(Self.ioBufferSize), 0,
                                               Unmanaged.passUnretained(self).toOpaque(), Self.readPacket, nil,
                                               Self.seekTo) else {
            throw .connectionFailed("out of memory for the http reader")
        }
        self.context = context
    }

    deinit {
        av_freep(&context.pointee.buffer)
        avio_context_free(&context)
    }

    /// What a playlist or manifest read through this reader names is relative to: where redirects led (a short link
    /// to a CDN's folder), else the name. Known once the first bytes are read.
    var base: String { redirectedName ?? name }

    /// The object's bytes from `start`, up to `limit` (a playlist's text, an encrypted segment); nil when none could
    /// be read.
    func readAll(from start: Int = 0, limit: Int) -> Data? {
        position = start
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count < limit {
            let count = buffer.withUnsafeMutableBufferPointer { read(into: $0.baseAddress!, count: min($0.count, limit - data.count)) }
            if count <= 0 { break }
            data.append(contentsOf: buffer[..<Int(count)])
        }
        return failure == nil || !data.isEmpty ? data : nil
    }

    /// Up to `count` bytes from `start`, leaving the read position where it was (they stay fetched: reading them
    /// next asks the server for nothing); nil when none could be read.
    func peek(_ count: Int, at start: Int = 0) -> Data? {
        let saved = position
        defer { position = saved }
        position = start
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBufferPointer { self.read(into: $0.baseAddress!, count: count) }
        return read > 0 ? Data(bytes[..<Int(read)]) : nil
    }

    /// Copies up to `count` bytes at the read position into `target`; fetches the next range when the position
    /// is past what was fetched.
    private func read(into target: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        if let size, position >= size { return framefarm_averror_eof() }
        if position < chunkStart || position >= chunkStart + chunk.count {
            guard fetch(at: position, wanting: count) else { return failure == nil ? framefarm_averror_eof() : -EIO }
        }
        let offset = position - chunkStart
        let copied = min(count, chunk.count - offset)
        chunk.withUnsafeBufferPointer { target.update(from: $0.baseAddress! + offset, count: copied) }
        position += copied
        return Int32(copied)
    }

    /// Fetches a range of at least `wanted` bytes starting at `start`; false at the end of the object or on a
    /// failure (kept in `failure`).
    private func fetch(at start: Int, wanting wanted: Int = 1) -> Bool {
        if failure != nil { return false }
        // Reading on where the last range ended: the demuxer is reading through, so ask for more at once.
        requestSize = start == chunkStart + chunk.count && !chunk.isEmpty
            ? min(Self.largestRequest, requestSize * 2) : Self.smallestRequest
        let requestedLast = min(start + max(requestSize, wanted), size ?? Int.max) - 1
        let first: Int, response: RangeClient.Response
        switch RangeCache.shared.claim(name: name, first: start, last: requestedLast) {
        case .cached(let cachedFirst, let cached):
            // A kept range that holds `start` (it may begin before it).
            (first, response) = (cachedFirst, cached)
        case .fetch(let last):
            let fetched = Result { () throws(InputError) in try client.getRetrying(start, through: last) }
            RangeCache.shared.finish(name: name, first: start, last: last, response: try? fetched.get())
            switch fetched {
            case .success(let success):
                (first, response) = (start, success)
                if let lost = cutShort(success, asked: last - start + 1, at: start) {
                    failure = lost
                    return false
                }
            case .failure(let error):
                failure = error
                return false
            }
        }
        if redirectedName == nil, let moved = response.redirectedTo {
            redirectedName = RemoteInput.register(moved)
            // What the place it moved to names is read as what the input names.
            RemoteInput.inheritHeaderOrigin(RemoteInput.headerOrigin(of: name), by: redirectedName!)
        }
        // Nothing at byte 0: an empty object (a 416, or a body of none), which FFmpeg would call "not a video".
        if start == 0, response.status == 416 || (response.body.isEmpty && response.objectSize == 0) {
            failure = .empty
            return false
        }
        if response.status == 416 { return false }
        if response.status == 200 { return keepWhole(response) }
        if response.status == 206, response.rangeStart != first {
            failure = .connectionFailed("the server answered a range request with other bytes than those asked for")
            return false
        }
        if let tag = response.headers["etag"] {
            if let etag, etag != tag {
                failure = .connectionFailed("the file changed on the server while it was being read (its ETag changed)")
                return false
            }
            etag = tag
        }
        size = size ?? response.objectSize
        chunk = response.body
        chunkStart = first
        return !chunk.isEmpty
    }

    /// Counts answers cut off after a few bytes, in a row (a connection dropped mid-body resumes from where it
    /// stopped): a server or proxy that closes every answer after some bytes would otherwise be asked again without
    /// end, 70000 requests for a 1-MB file at 10 bytes each. The error once there have been too many.
    private func cutShort(_ response: RangeClient.Response, asked: Int, at start: Int) -> InputError? {
        let reachesEnd = response.objectSize.map { start + response.body.count >= $0 } ?? false
        guard response.status == 206, response.body.count < asked, !reachesEnd,
              response.body.count < Self.tinyAnswer else {
            tinyAnswersInARow = 0
            return nil
        }
        tinyAnswersInARow += 1
        guard tinyAnswersInARow >= Self.mostTinyAnswersInARow else { return nil }
        return .connectionFailed("connection lost: the server closed \(tinyAnswersInARow) answers in a row after "
                                 + "less than \(Self.tinyAnswer >> 10) KiB each (at byte \(start + response.body.count))")
    }

    /// A 200 to a range request: the server ignores ranges, and its body starts at byte 0. An object small enough
    /// is read whole (the client keeps the whole body; cut off, it is asked for again to its end), kept for every
    /// reader of it, and every read served from it; a larger one fails the input.
    private func keepWhole(_ response: RangeClient.Response) -> Bool {
        guard let total = response.objectSize, total <= Self.wholeObjectLimit else {
            failure = .connectionFailed(Self.noRangesMessage)
            return false
        }
        var whole = response
        if whole.body.count < total {
            do { whole = try client.getRetrying(0, through: total - 1) } catch {
                failure = error
                return false
            }
        }
        RangeCache.shared.keepWhole(name: name, response: whole)
        size = total
        chunk = whole.body
        chunkStart = 0
        return !chunk.isEmpty
    }

    private func seek(to offset: Int64, whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 {
            if size == nil, failure == nil { _ = fetch(at: position) }
            return size.map(Int64.init) ?? -1
        }
        let base: Int
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END:
            if size == nil, failure == nil { _ = fetch(at: position) }
            guard let size else { return -1 }
            base = size
        default: return -1
        }
        let target = base + Int(offset)
        guard target >= 0 else { return -1 }
        position = target
        return Int64(target)
    }

    /// Why a segment or rendition playlist of the playlist `parent` could not be read, once; nil when all were.
    static func takeNestedFailure(within parent: String) -> InputError? {
        NestedOpener.failures.withLock { $0.removeValue(forKey: parent) }
    }

    /// What a playlist opens (an HLS playlist's renditions and segments, the HLS playlist a DASH representation
    /// becomes), FFmpeg asks for through the format context's `io_open`: each remote one through a reader of its
    /// own, so segments are read in range requests too and never by FFmpeg's http client. A nested URL without a
    /// query takes the playlist's (a CDN token that signs a whole folder; a signature per object cannot be
    /// guessed); its name, as always, has none. A remote AES-128 segment (`crypto+URL`) is read whole and decrypted
    /// here (`EncryptedSegment`). Local files go to FFmpeg's own opener. Either way, what cannot be opened is kept
    /// for `takeNestedFailure`.
    static func installNestedOpener(on context: UnsafeMutablePointer<AVFormatContext>) {
        NestedOpener.defaults.withLock { defaults in
            if defaults == nil { defaults = (context.pointee.io_open, context.pointee.io_close2) }
        }
        context.pointee.io_open = NestedOpener.open
        context.pointee.io_close2 = NestedOpener.close
    }

    private static let readPacket: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
        opaque, buffer, count in
        guard let opaque, let buffer else { return -EINVAL }
        return Unmanaged<RemoteReader>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, count: Int(count))
    }

    private static let seekTo: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        guard let opaque else { return -1 }
        return Unmanaged<RemoteReader>.fromOpaque(opaque).takeUnretainedValue().seek(to: offset, whence: whence)
    }
}

/// The ranges a process fetched lately, by input name. Every open of a remote input asks for the same first bytes
/// and the same index (an MP4's `moov`: megabytes for a long film), and an input is opened several times (its
/// facts, its padding samples, each job's decoding, parallel chunks): after the first, these come from here. A
/// reader asking for a range another reader is fetching waits for it rather than fetching it too. Bounded to
/// `budgetBytes`, oldest out first; a response is kept only when it is whole (a 206 of every byte asked for, or of
/// every byte to the object's end).
final class RangeCache: @unchecked Sendable {
    static let shared = RangeCache(budgetBytes: 64 * 1024 * 1024)

    enum Claim {
        /// A kept response holding the first byte asked for, and where it starts.
        case cached(first: Int, RangeClient.Response)
        /// Nobody has it: fetch from the first byte asked for through `last` (the end asked for, or earlier where
        /// a range kept or being fetched begins: its bytes are not fetched twice), then call `finish`.
        case fetch(last: Int)
    }

    private struct Entry {
        var name: String
        var first: Int
        var response: RangeClient.Response
    }

    private let budgetBytes: Int
    // Guards everything below; waiters on a range being fetched sleep on it. (Unchecked Sendable: only touched
    // with the condition's lock held.)
    private let condition = NSCondition()
    private var entries: [Entry] = []
    private var bytes = 0
    private var inFlight: [(name: String, first: Int, last: Int)] = []

    init(budgetBytes: Int) { self.budgetBytes = budgetBytes }

    func claim(name: String, first: Int, last: Int) -> Claim {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let entry = entries.last(where: { $0.name == name && $0.first <= first && first < $0.first + $0.response.body.count }) {
                return .cached(first: entry.first, entry.response)
            }
            if !inFlight.contains(where: { $0.name == name && $0.first <= first && first <= $0.last }) {
                let nextStart = (entries.map { ($0.name, $0.first) } + inFlight.map { ($0.name, $0.first) })
                    .filter { $0.0 == name && $0.1 > first }.map(\.1).min()
                let end = min(last, (nextStart ?? Int.max) - 1)
                inFlight.append((name, first, end))
                return .fetch(last: end)
            }
            condition.wait()
        }
    }

    /// Keeps an object read whole from a server that ignores ranges, for every reader of it (each worker, each
    /// segment of a byte-range playlist) that would otherwise ask for all of it again.
    func keepWhole(name: String, response: RangeClient.Response) {
        condition.lock()
        defer { condition.unlock() }
        guard response.body.count <= budgetBytes / 2,
              !entries.contains(where: { $0.name == name && $0.first == 0 && $0.response.status == 200 }) else { return }
        entries.append(Entry(name: name, first: 0, response: response))
        bytes += response.body.count
        while bytes > budgetBytes, !entries.isEmpty { bytes -= entries.removeFirst().response.body.count }
    }

    /// Ends a `.fetch` claim: keeps the response when it is whole, and wakes the readers waiting for it.
    func finish(name: String, first: Int, last: Int, response: RangeClient.Response?) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        inFlight.removeAll { $0.name == name && $0.first == first && $0.last == last }
        // Whole: every byte asked for, or every byte to the object's end (a segment smaller than the range asked).
        guard let response, response.status == 206,
              response.body.count == last - first + 1 || response.objectSize == first + response.body.count,
              response.body.count <= budgetBytes / 8 else { return }
        entries.append(Entry(name: name, first: first, response: response))
        bytes += response.body.count
        while bytes > budgetBytes, !entries.isEmpty { bytes -= entries.removeFirst().response.body.count }
    }
}
