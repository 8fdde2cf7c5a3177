import CFFmpeg
import Foundation
import FrameFarmCore

/// `RemoteReader.installNestedOpener`'s callbacks, and the readers they opened (kept alive until FFmpeg closes
/// their context).
enum NestedOpener {
    typealias Open = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                                     UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias Close = @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<AVIOContext>?) -> Int32

    /// FFmpeg's own `io_open` and `io_close2`, for what the readers do not open.
    static let defaults = Locked<(open: Open?, close: Close?)?>(nil)
    /// The readers opened, by their AVIOContext's address.
    private static let readers = Locked<[Int: ReaderBox]>([:])

    private final class ReaderBox: @unchecked Sendable {  // unchecked: a reader is used by the one demuxer that opened it
        /// A segment or playlist read as FFmpeg asks for its bytes.
        let remote: RemoteReader?
        /// Read whole and given from memory: an AES-128 segment decrypted, a playlist behind a redirect.
        let memory: MemoryReader?
        /// The playlist it was opened for.
        let parent: String
        init(remote: RemoteReader? = nil, memory: MemoryReader? = nil, parent: String) {
            self.remote = remote
            self.memory = memory
            self.parent = parent
        }
    }

    /// The first segment (or rendition playlist) of each playlist that could not be read, by the playlist's name:
    /// FFmpeg's demuxers skip such a segment and go on, which would leave its part of the video showing the frame
    /// before it.
    static let failures = Locked<[String: InputError]>([:])

    /// The rendition playlists of each multivariant playlist that could not be read, by the playlist's name:
    /// FFmpeg's hls demuxer leaves them out of the ladder, as players skip them, and reads the others.
    static let skippedRenditions = Locked<[String: [InputError]]>([:])

    /// Notes `segment` of `parent` failed, for `reason`; `unreadable` when its bytes could not be had rather than
    /// being no media (lint tells the two apart).
    private static func fail(_ parent: String, segment: String, reason: String, unreadable: Bool) {
        let failure = InputError.segmentFailed(segment: segment, reason: reason, unreadable: unreadable)
        // Only a multivariant playlist names playlists (segments are media): a rendition of the ladder.
        let extensionName = segment.split(separator: "?").first?.split(separator: ".").last?.lowercased()
        if extensionName == "m3u8" || extensionName == "m3u" {
            skippedRenditions.withLock { $0[parent, default: []].append(failure) }
        } else {
            failures.withLock { $0[parent] = $0[parent] ?? failure }
        }
    }

    /// Why renditions of the multivariant playlist `parent` were left out, once; empty when none were.
    static func takeSkippedRenditions(within parent: String) -> [InputError] {
        skippedRenditions.withLock { $0.removeValue(forKey: parent) } ?? []
    }

    static let open: Open = { context, pb, url, flags, options in
        guard let context, let pb, let url else { return -EINVAL }
        let location = String(cString: url)
        let parent = context.pointee.url.map { String(cString: $0) } ?? ""
        // The input has failed already: FFmpeg would go on to the next segments, each tried and retried in vain
        // (48 requests and 84 s for a folder that answers 500).
        if failures.withLock({ $0[parent] != nil }) { return -EIO }
        // FFmpeg's hls demuxer names an AES-128 segment `crypto+URL` or `crypto:PATH`, its key and IV in the options.
        let encrypted = location.hasPrefix("crypto+") || location.hasPrefix("crypto:") ? String(location.dropFirst(7)) : nil
        let target = encrypted ?? location
        // An uploaded playlist must not pull the worker's own files into its outputs.
        if RemoteInput.isRemote(parent), !RemoteInput.isRemote(target), !target.hasPrefix("data:") {
            fail(parent, segment: localPath(target) ?? target, reason: "a playlist read over http(s) may not name a file on this machine",
                 unreadable: true)
            return -EACCES
        }
        if let encrypted { return openEncrypted(encrypted, parent: parent, pb: pb, options: options?.pointee) }
        guard RemoteInput.isRemote(location) else {
            // FFmpeg opens an empty file or a folder and reads nothing from it, so the segment would be skipped.
            if let path = localPath(location), let problem = problem(with: path) {
                fail(parent, segment: path, reason: problem, unreadable: true)
                return -EIO
            }
            // A segment in no format segments come in would be skipped; one cut short (an upload that stopped) would
            // have its last frames read from the next one's bytes.
            if let path = localPath(location), let problem = formatProblem(localFile(location) ?? path, options: options?.pointee) {
                fail(parent, segment: path, reason: problem, unreadable: false)
                return -EIO
            }
            guard let fallback = defaults.withLock({ $0?.open }) else { return -EINVAL }
            let code = localFile(location).map { file in file.withCString { fallback(context, pb, $0, flags, options) } }
                ?? fallback(context, pb, url, flags, options)
            // A local segment missing would be skipped too.
            if code < 0, code != framefarm_averror_exit() {
                fail(parent, segment: location, reason: FFmpegError(rawValue: code).description, unreadable: true)
            }
            return code
        }
        let name = RemoteInput.registerNested(location, within: parent)
        do {
            let reader = try RemoteReader(name: name)
            // An EXT-X-BYTERANGE segment starts part-way into its file.
            let offset = integer(options?.pointee, "offset") ?? 0
            let head = reader.peek(64 << 10, at: offset)
            let size = (integer(options?.pointee, "end_offset") ?? reader.size).map { $0 - offset }
            if let head, let problem = SegmentFormat.problem(head: head, size: size) {
                // Bytes that are no segment, or cut short: not a read that failed.
                fail(parent, segment: name, reason: problem, unreadable: false)
                return -EIO
            }
            if offset > 0 { _ = avio_seek(reader.context, Int64(offset), SEEK_SET) }
            if offset == 0, head?.starts(with: "#EXTM3U".utf8) == true, let memory = try redirectedPlaylist(reader) {
                pb.pointee = memory.context
                readers.withLock { $0[Int(bitPattern: memory.context)] = ReaderBox(memory: memory, parent: parent) }
                return 0
            }
            pb.pointee = reader.context
            readers.withLock { $0[Int(bitPattern: reader.context)] = ReaderBox(remote: reader, parent: parent) }
            return 0
        } catch {
            fail(parent, segment: name, reason: "\(error)", unreadable: (error as? InputError)?.isReadFailure ?? true)
            return -EIO
        }
    }

    /// A rendition's playlist (`reader`'s bytes start `#EXTM3U`) found behind a redirect, with what it names
    /// resolved against where the redirect led, as players resolve it: FFmpeg would resolve it against the address
    /// it asked for. Nil where there was no redirect.
    private static func redirectedPlaylist(_ reader: RemoteReader) throws -> MemoryReader? {
        guard reader.redirectedName != nil, let data = reader.readAll(limit: PlaylistScan.largestText + 1) else { return nil }
        if let failure = reader.failure { throw failure }
        guard data.count <= PlaylistScan.largestText else { throw InputError.unreadable("a playlist larger than \(PlaylistScan.largestText >> 20) MiB") }
        return try MemoryReader(Data(PlaylistScan.absolutized(String(decoding: data, as: UTF8.self), against: reader.base).utf8))
    }

    /// An AES-128 segment, read whole and decrypted here: through FrameFarm's reader when remote (FFmpeg's `crypto`
    /// protocol would fetch it with its own http client: no `--header`, `--io-timeout`, retries or token), from
    /// disk when local (FFmpeg's protocol does not check the padding, so a wrong key gives garbage frames).
    private static func openEncrypted(_ location: String, parent: String, pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>,
                                      options: OpaquePointer?) -> Int32 {
        let remote = RemoteInput.isRemote(location)
        let name = remote ? RemoteInput.registerNested(location, within: parent) : localPath(location) ?? location
        do throws(InputError) {
            guard let key = hex(options, "key"), let iv = hex(options, "iv") else {
                throw .decryptionFailed("FFmpeg gave no AES-128 key and IV for it")
            }
            let start = integer(options, "offset") ?? 0
            let end = integer(options, "end_offset").flatMap { $0 > start ? $0 : nil }
            let limit = end.map { min($0 - start, EncryptedSegment.largestBytes + 1) } ?? EncryptedSegment.largestBytes + 1
            let sealed = remote ? try readRemote(name, from: start, limit: limit) : try readLocal(name, from: start, limit: limit)
            let decrypted = try EncryptedSegment.decrypt(sealed, key: key, iv: iv)
            // A wrong key whose garbage happens to end in valid padding.
            if let problem = SegmentFormat.problem(head: decrypted.prefix(256), size: decrypted.count) {
                throw .decryptionFailed("decrypted with its key, " + problem)
            }
            let plain = try MemoryReader(decrypted)
            pb.pointee = plain.context
            readers.withLock { $0[Int(bitPattern: plain.context)] = ReaderBox(memory: plain, parent: parent) }
            return 0
        } catch {
            fail(parent, segment: name, reason: error.description, unreadable: error.isReadFailure)
            return -EIO
        }
    }

    private static func readRemote(_ name: String, from start: Int, limit: Int) throws(InputError) -> Data {
        let reader = try RemoteReader(name: name)
        let data = reader.readAll(from: start, limit: limit)
        // Part of a segment (its server failed or changed it half-way) would not decrypt.
        if let failure = reader.failure { throw failure }
        return data ?? Data()
    }

    private static func readLocal(_ path: String, from start: Int, limit: Int) throws(InputError) -> Data {
        if let problem = problem(with: path) { throw .unreadable(problem) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable("no such file") }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(start))
            return try handle.read(upToCount: limit) ?? Data()
        } catch {
            throw .unreadable(error.localizedDescription)
        }
    }

    /// Why the local segment at `path` (from its `offset` to its `end_offset`, when FFmpeg gives them) cannot be
    /// read (`SegmentFormat.problem`); nil when it can, or cannot be read here (FFmpeg names why).
    private static func formatProblem(_ path: String, options: OpaquePointer?) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let start = integer(options, "offset") ?? 0
        guard let fileSize = try? handle.seekToEnd(), (try? handle.seek(toOffset: UInt64(start))) != nil,
              let head = try? handle.read(upToCount: 64 << 10) else { return nil }
        return SegmentFormat.problem(head: head, size: (integer(options, "end_offset") ?? Int(fileSize)) - start)
    }

    /// The path a local location names (`file:` URLs as well); nil for other protocols (`data:`).
    private static func localPath(_ location: String) -> String? {
        if location.hasPrefix("file://") { return URL(string: location)?.path ?? String(location.dropFirst(7)) }
        if location.hasPrefix("file:") { return String(location.dropFirst(5)) }
        if let colon = location.firstIndex(of: ":"), location[..<colon].allSatisfy(\.isLetter), !location.hasPrefix("/") {
            return nil
        }
        return location
    }

    /// The file a local segment's address names when it is not the address itself: a playlist's addresses are
    /// URIs (RFC 8216), so `%20` is a space and a query (a CDN's, kept when the playlist was saved) is not part of
    /// the file's name, as a browser reading the playlist from disk takes them. Nil when the address is the file.
    private static func localFile(_ location: String) -> String? {
        guard let path = localPath(location), !FileManager.default.fileExists(atPath: path) else { return nil }
        let withoutQuery = String(path.prefix { $0 != "?" && $0 != "#" })
        let file = withoutQuery.removingPercentEncoding ?? withoutQuery
        return file != path && FileManager.default.fileExists(atPath: file) ? file : nil
    }

    /// Why the local file at `path` cannot be a segment or key, when it is there but is a folder or empty (a missing
    /// one FFmpeg reports itself).
    private static func problem(with path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return "is a directory, not a file" }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        return size == 0 ? "file is empty (0 bytes)" : nil
    }

    static let close: Close = { context, pb in
        guard let pb else { return 0 }
        if let box = readers.withLock({ $0.removeValue(forKey: Int(bitPattern: pb)) }) {
            if let remote = box.remote, let failure = remote.failure {
                fail(box.parent, segment: remote.name, reason: failure.description, unreadable: failure.isReadFailure)
            }
            return 0
        }
        return defaults.withLock { $0?.close }.map { $0(context, pb) } ?? 0
    }

    private static func integer(_ options: OpaquePointer?, _ key: String) -> Int? {
        av_dict_get(options, key, nil, 0).flatMap { Int(String(cString: $0.pointee.value)) }
    }

    /// A 16-byte value FFmpeg passes as 32 hex digits.
    private static func hex(_ options: OpaquePointer?, _ key: String) -> [UInt8]? {
        guard let text = av_dict_get(options, key, nil, 0).map({ Array(String(cString: $0.pointee.value).utf8) }),
              text.count == 32 else { return nil }
        let bytes = stride(from: 0, to: 32, by: 2).compactMap { UInt8(String(decoding: text[$0..<$0 + 2], as: UTF8.self), radix: 16) }
        return bytes.count == 16 ? bytes : nil
    }
}

/// An HLS AES-128 segment's bytes (RFC 8216 section 5.2): AES-128 in CBC mode with PKCS#7 padding, decrypted by
/// libavutil's AES.
enum EncryptedSegment {
    /// A segment larger than this (a minute of 4K at 30 Mb/s) is refused rather than held in memory.
    static let largestBytes = 256 << 20

    static func decrypt(_ sealed: Data, key: [UInt8], iv: [UInt8]) throws(InputError) -> Data {
        guard sealed.count <= largestBytes else {
            throw .decryptionFailed("an encrypted segment larger than \(largestBytes >> 20) MiB")
        }
        guard !sealed.isEmpty, sealed.count % 16 == 0 else {
            throw .decryptionFailed("\(sealed.count) bytes is not a whole number of AES blocks: not AES-128 data, or cut short")
        }
        guard let aes = av_aes_alloc() else { throw .decryptionFailed("out of memory") }
        defer { av_free(UnsafeMutableRawPointer(aes)) }
        av_aes_init(aes, key, 128, 1)
        var chain = iv
        var plain = [UInt8](repeating: 0, count: sealed.count)
        sealed.withUnsafeBytes { source in
            plain.withUnsafeMutableBufferPointer { target in
                av_aes_crypt(aes, target.baseAddress, source.bindMemory(to: UInt8.self).baseAddress, Int32(sealed.count / 16), &chain, 1)
            }
        }
        let padding = Int(plain.last!)
        guard (1...16).contains(padding), plain.suffix(padding).allSatisfy({ Int($0) == padding }) else {
            throw .decryptionFailed("its AES-128 padding is wrong: the key does not open it (a wrong key, a key file that is "
                                    + "not the 16 bytes of a key, or a segment that is not AES-128 data)")
        }
        return Data(plain.dropLast(padding))
    }
}
