import Foundation
import FrameFarmCore

/// How http(s) inputs are read: set once per process (`--io-timeout`, `--header`, `--ca-file`) before a batch
/// starts, and used by every open of every remote input.
public struct RemoteSettings: Sendable, Equatable {
    /// Seconds a connection may go without a byte (connecting, waiting for an answer, each read) before it
    /// counts as dead.
    public var timeoutSeconds: Double = 30
    /// `Name: value` lines sent with every request: the credentials of a private origin. Never printed.
    public var headers: [String] = []
    /// A PEM file of the certificate authorities to trust instead of the system's (a private origin's own CA).
    public var caFile: String?
    /// Tries of a request that meets a reset connection or a 5xx answer, 1, 2 then 4 s apart.
    public var attempts = 4

    public init() {}

    /// A header line as `--header` takes it: `Name: value`, no line breaks (they would forge other headers).
    public static func isValidHeader(_ line: String) -> Bool {
        guard let colon = line.firstIndex(of: ":"), colon > line.startIndex else { return false }
        return !line.contains("\r") && !line.contains("\n")
            && line[..<colon].allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }
}

/// http(s) inputs. A URL's query string (a presigned URL's signature, which changes on every request) and any
/// `user:password@` never go further than this type: the batch knows a remote input by its *name*, the URL without
/// them, and uses the name for its folder, its manifest, its resume key and every line it prints. Only the
/// requests themselves (`RangeClient`) carry the whole URL, looked up here by name.
public enum RemoteInput {
    private static let state = Locked(State())

    private struct State {
        var settings = RemoteSettings()
        /// Name to whole URL, for the inputs whose URL differs from their name.
        var locations: [String: String] = [:]
        /// Name to the origin whose requests carry the `--header` values, for what an input names or redirects to
        /// (see `headerOrigin(of:)`).
        var headerOrigins: [String: String] = [:]
    }

    public static var settings: RemoteSettings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// Whether `input` is an http or https URL (the scheme in any case).
    public static func isRemote(_ input: String) -> Bool {
        let scheme = input.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    /// The URL without user information, query or fragment, with its scheme in lower case:
    /// `https://bucket.example.com/a/clip.mp4` for `HTTPS://key:secret@bucket.example.com/a/clip.mp4?X-Sig=1#t`.
    public static func name(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let beforeQuery = rest.prefix { $0 != "?" && $0 != "#" }
        let authorityEnd = beforeQuery.firstIndex(of: "/") ?? beforeQuery.endIndex
        var authority = beforeQuery[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let path = beforeQuery[authorityEnd...]
        return scheme + "://" + authority + (path.isEmpty ? "/" : path)
    }

    /// `scheme://host:port` of an address, as browsers compare origins: scheme and host in lower case, a missing
    /// port the scheme's own. A token or a `--header` value never goes to another.
    static func origin(of address: String) -> String {
        guard let components = URLComponents(string: address) else { return address }
        let scheme = components.scheme?.lowercased() ?? ""
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(components.host?.lowercased() ?? ""):\(port)"
    }

    /// Keeps `url` behind its name and returns the name, the only form in which the batch carries it.
    public static func register(_ url: String) -> String {
        let name = name(of: url)
        if name != url { state.withLock { $0.locations[name] = url } }
        return name
    }

    /// Registers a URL a remote playlist names (a rendition, a segment), given the playlist's name: a URL without a
    /// query of its own, on the playlist's own origin, takes the playlist's (a token is never sent to another host).
    /// Returns its name.
    static func registerNested(_ url: String, within parent: String) -> String {
        let parentLocation = location(of: parent)
        let parentHeaderOrigin = headerOrigin(of: parent)
        let nested: String
        if !url.contains("?"), origin(of: name(of: url)) == origin(of: parent), let query = parentLocation.firstIndex(of: "?") {
            nested = name(of: url)
            state.withLock { $0.locations[nested] = url + parentLocation[query...] }
        } else {
            nested = register(url)
        }
        inheritHeaderOrigin(parentHeaderOrigin, by: nested)
        return nested
    }

    /// The origin whose requests carry the `--header` values when `name` is read: the input's own origin, for what
    /// the input names (a rendition, a segment) or redirects to as for the input itself, so that a segment on a
    /// CDN or another host, or a playlist a redirect moved to one, is sent none of them.
    static func headerOrigin(of name: String) -> String {
        state.withLock { $0.headerOrigins[name] } ?? origin(of: location(of: name))
    }

    /// Records that `name` was reached from something read with `headerOrigin`. A name reached from two origins
    /// (one segment in two inputs) gets the headers of neither.
    static func inheritHeaderOrigin(_ headerOrigin: String, by name: String) {
        state.withLock { state in
            if let known = state.headerOrigins[name], known != headerOrigin {
                state.headerOrigins[name] = ""
            } else {
                state.headerOrigins[name] = headerOrigin
            }
        }
    }

    /// The whole URL behind a name (the name itself when it was registered without a query).
    static func location(of name: String) -> String {
        state.withLock { $0.locations[name] } ?? name
    }

    /// The last path component without its extension, percent-decoded: the folder name a remote input gets
    /// (`clip` for `https://host/videos/clip.mp4`). A `/` decoded from `%2F` becomes `_`.
    public static func stem(of name: String) -> String {
        let path = pathComponents(of: name)
        let file = path.last.map(String.init) ?? ""
        let decoded = file.removingPercentEncoding ?? file
        let dot = decoded.lastIndex(of: ".")
        let stem = dot.map { decoded[..<$0] }.flatMap { $0.isEmpty ? nil : $0 } ?? Substring(decoded)
        return stem.replacingOccurrences(of: "/", with: "_")
    }

    /// The folders of a URL path relative to a root (`a/b` for `a/b/clip.mp4`), percent-decoded (a `/` decoded
    /// from `%2F` becomes `_`).
    public static func folders(in relativePath: String) -> [String] {
        relativePath.split(separator: "/").dropLast().map { component in
            (String(component).removingPercentEncoding ?? String(component)).replacingOccurrences(of: "/", with: "_")
        }
    }

    private static func pathComponents(of name: String) -> [Substring] {
        guard let schemeEnd = name.range(of: "://") else { return [] }
        let rest = name[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return [] }
        return rest[slash...].split(separator: "/")
    }
}
