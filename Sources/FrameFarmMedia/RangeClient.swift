import CCurl
import Foundation

/// Range GETs of one http(s) URL through libcurl: one handle, so its connection stays open between requests.
/// Redirects are followed, certificates checked, and a server that sends nothing for `--io-timeout` seconds
/// fails the request. Every error is an `InputError` in the words of the input's failure line, with any URL in
/// it reduced to its name. Not thread-safe: one per reader.
final class RangeClient {
    struct Response {
        var status: Int
        var reason: String
        /// Lower-case names; a redirect's headers are replaced by those of the response it leads to.
        var headers: [String: String]
        var body: [UInt8]
        /// The URL redirects led to, when they led elsewhere: what a playlist's relative addresses resolve against.
        var redirectedTo: String?

        /// The whole object's size: `Content-Range`'s total, else `Content-Length` of a 200.
        var objectSize: Int? {
            if let range = headers["content-range"], let total = range.split(separator: "/").last { return Int(total) }
            return status == 200 ? headers["content-length"].flatMap { Int($0) } : nil
        }

        /// The first byte a 206's `Content-Range` says it holds.
        var rangeStart: Int? {
            headers["content-range"]?.split(separator: " ").last?.split(separator: "-").first.flatMap { Int($0) }
        }
    }

    /// A request that failed: what to say, whether trying again may help (a reset, a 5xx, a 429), how long the
    /// server asked to wait first (`Retry-After`, in seconds), and the part of a 206 that came before it failed (a
    /// connection dropped mid-body still moves the reader on).
    struct Failure: Error {
        var error: InputError
        var retryable: Bool
        var retryAfter: Double?
        var partial: Response?

        var timedOut: Bool {
            if case .timedOut = error { return true }
            return false
        }
    }

    static let userAgent = "FrameFarm"
    private static let initialized: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private let curl: UnsafeMutableRawPointer
    private let location: String
    private let settings: RemoteSettings
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// Whether a 200 to a range request (a server that ignores ranges) is kept whole when it is small enough to be
    /// read whole, rather than cut at the range asked: a reader's, which would ask for all of it next; not the
    /// one-byte identity request, which `report` makes of every input.
    var keepsWholeObjects = false

    /// A client of the whole URL behind `name` (`RemoteInput.location`), with the process's settings; the
    /// `--header` values go with its requests only on the input's origin (`RemoteInput.headerOrigin`).
    init(name: String) throws(InputError) {
        Self.initialized
        let location = RemoteInput.location(of: name), settings = RemoteInput.settings
        guard let curl = curl_easy_init() else { throw .connectionFailed("cannot start an http request (libcurl)") }
        self.curl = curl
        // A URL pasted as a path (`.../my clip.mp4`, non-ASCII letters) is sent escaped, as a browser sends it;
        // escapes already there stay.
        let allowed = CharacterSet.urlFragmentAllowed.union(CharacterSet(charactersIn: "#%[]"))
        self.location = location.addingPercentEncoding(withAllowedCharacters: allowed) ?? location
        self.settings = settings
        // The input's origin only: never a segment or playlist another host serves.
        if RemoteInput.origin(of: location) == RemoteInput.headerOrigin(of: name) {
            for header in settings.headers { headerList = curl_slist_append(headerList, header) }
        }
    }

    deinit {
        curl_easy_cleanup(curl)
        curl_slist_free_all(headerList)
    }

    /// One GET of bytes `first...last` (a 200 from a server that ignores ranges is cut off after as many bytes).
    /// Redirects are followed here rather than by libcurl, which sends `--header` values to whatever host a
    /// redirect names (it drops only `Authorization` and cookies): past a redirect to another origin (a CDN, an
    /// object store), none of them goes.
    func get(_ first: Int, through last: Int) -> Result<Response, Failure> {
        var address = location, headers = headerList, collector = Collector(limit: last - first + 1, keepsWhole: keepsWholeObjects)
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var code = CURLE_OK, elsewhere: String?
        for hop in 0...Self.redirectLimit {
            collector = Collector(limit: last - first + 1, keepsWhole: keepsWholeObjects)
            code = perform(address, range: "\(first)-\(last)", headers: headers, collector: collector, errorText: &errorText)
            var next: UnsafeMutablePointer<CChar>?
            framefarm_curl_get_string(curl, CURLINFO_REDIRECT_URL, &next)
            guard code == CURLE_OK, (300...399).contains(collector.status), let next else { break }
            guard hop < Self.redirectLimit else {
                code = CURLE_TOO_MANY_REDIRECTS
                break
            }
            // Only http(s): a server must not lead the farm to another protocol (an FTP login, a local file).
            guard RemoteInput.isRemote(String(cString: next)) else {
                elsewhere = String(cString: next)
                break
            }
            address = String(cString: next)
            if RemoteInput.origin(of: address) != RemoteInput.origin(of: location) { headers = nil }
        }
        let response = Response(status: collector.status, reason: collector.reason, headers: collector.headers,
                                body: collector.body, redirectedTo: address == location ? nil : address)
        func failed(_ error: InputError, retryable: Bool = false) -> Result<Response, Failure> {
            .failure(Failure(error: error, retryable: retryable,
                             partial: response.status == 206 && !response.body.isEmpty ? response : nil))
        }
        if let elsewhere {
            let scheme = elsewhere.split(separator: ":", maxSplits: 1).first.map(String.init) ?? elsewhere
            return failed(.connectionFailed("a redirect to \(scheme): is not followed (only http and https are)"))
        }
        let message = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // curl's words name the host, not the query; a redirect's target could still carry one.
        let detail = (message.isEmpty ? String(cString: curl_easy_strerror(code)) : message)
            .split(separator: " ").map { word in
                RemoteInput.isRemote(String(word)) ? RemoteInput.name(of: String(word)) : String(word)
            }.joined(separator: " ")
        switch code {
        case CURLE_OK:
            break
        case CURLE_WRITE_ERROR where collector.cutOff:
            break  // a range-less server's body, cut off on purpose
        case CURLE_OPERATION_TIMEDOUT, CURLE_ABORTED_BY_CALLBACK:
            return failed(.timedOut(seconds: settings.timeoutSeconds))
        case CURLE_COULDNT_RESOLVE_HOST:
            return failed(.connectionFailed("cannot resolve the host name: \(detail)"))
        case CURLE_COULDNT_CONNECT:
            // The system's reason ("Connection refused", "No route to host") says more than curl's summary.
            var systemError = 0
            framefarm_curl_get_long(curl, CURLINFO_OS_ERRNO, &systemError)
            return failed(.connectionFailed("cannot connect: "
                                            + (systemError != 0 ? String(cString: strerror(Int32(systemError))) : detail)))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_CIPHER:
            return failed(.tlsFailure(detail))
        case CURLE_TOO_MANY_REDIRECTS:
            return failed(.connectionFailed("more than 10 redirects"))
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return failed(.connectionFailed("connection lost: \(detail)"), retryable: true)
        default:
            return failed(.connectionFailed(detail))
        }
        switch response.status {
        case 200, 206, 416:
            return .success(response)
        default:
            // Object stores and CDNs throttle with 429 (or 503) and say when to come back. A refusal past a redirect
            // names where it came from (never its query), and that --header values did not go there.
            var reason = response.reason.isEmpty ? "error" : response.reason
            if response.redirectedTo != nil {
                let withoutHeaders = headers == nil && headerList != nil ? ", where --header values are not sent" : ""
                reason += " (after a redirect to \(RemoteInput.name(of: address))\(withoutHeaders))"
            } else if [401, 403].contains(response.status), headerList == nil, !settings.headers.isEmpty {
                // A segment a playlist names on a CDN, refused for want of the credentials kept to the input's origin.
                reason += " (\(RemoteInput.origin(of: location)) is not the input's origin: --header values are not sent there)"
            }
            var failure = Failure(error: .http(status: response.status, reason: reason),
                                  retryable: (500...599).contains(response.status) || response.status == 429)
            failure.retryAfter = response.headers["retry-after"].flatMap { Self.secondsToWait($0, now: Date()) }
            return .failure(failure)
        }
    }

    /// `Retry-After` as RFC 9110 (10.2.3) gives it: seconds, or the HTTP-date to come back at (an IMF-fixdate,
    /// "Sun, 06 Nov 1994 08:49:37 GMT", as S3 and most CDNs write it). Nil for anything else.
    static func secondsToWait(_ value: String, now: Date) -> Double? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(value) { return max(0, seconds) }
        return imfFixdate(value).map { max(0, $0.timeIntervalSince(now)) }
    }

    /// Read by hand: a DateFormatter shared between a batch's workers is not safe on every Foundation.
    private static func imfFixdate(_ text: String) -> Date? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let month = months.firstIndex(of: String(fields[2])) else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, let day = Int(fields[1]), let year = Int(fields[3]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        return calendar.date(from: DateComponents(year: year, month: month + 1, day: day,
                                                  hour: clock[0], minute: clock[1], second: clock[2]))
    }

    private static let redirectLimit = 10

    /// One request to `address`, redirects not followed.
    private func perform(_ address: String, range: String, headers: UnsafeMutablePointer<curl_slist>?,
                         collector: Collector, errorText: inout [CChar]) -> CURLcode {
        let timeout = max(1, Int(settings.timeoutSeconds.rounded(.up)))
        return withExtendedLifetime(collector) {
            errorText.withUnsafeMutableBufferPointer { errorBuffer in
                let context = Unmanaged.passUnretained(collector).toOpaque()
                framefarm_curl_set_string(curl, CURLOPT_URL, address)
                framefarm_curl_set_string(curl, CURLOPT_RANGE, range)
                framefarm_curl_set_string(curl, CURLOPT_USERAGENT, Self.userAgent)
                framefarm_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0)
                framefarm_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
                // The batch's threads each make requests: no signals (curl's DNS timeouts would use SIGALRM).
                framefarm_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
                framefarm_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, timeout)
                // No byte for `timeout` seconds, timed here: curl's low-speed limit averages the speed over its last
                // 5 s, so a server that sent a little and went quiet failed 6 s late.
                collector.lastActivity = Date()
                collector.idleLimit = settings.timeoutSeconds
                framefarm_curl_set_long(curl, CURLOPT_NOPROGRESS, 0)
                framefarm_curl_set_progress(curl, Self.progress)
                framefarm_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context)
                if let caFile = settings.caFile { framefarm_curl_set_string(curl, CURLOPT_CAINFO, caFile) }
                framefarm_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
                framefarm_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer.baseAddress))
                framefarm_curl_set_callback(curl, CURLOPT_HEADERFUNCTION, Self.headerLine)
                framefarm_curl_set_pointer(curl, CURLOPT_HEADERDATA, context)
                framefarm_curl_set_callback(curl, CURLOPT_WRITEFUNCTION, Self.bodyBytes)
                framefarm_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
                return curl_easy_perform(curl)
            }
        }
    }

    /// Whether the server gives byte 0 of `name` at the first try: a 206, or a 416 for an empty file. For picking
    /// among copies (a DASH manifest's `BaseURL`s) before reading one.
    static func answers(_ name: String) -> Result<Void, InputError> {
        do {
            switch try RangeClient(name: name).get(0, through: 0) {
            case .success: return .success(())
            case .failure(let failure): return .failure(failure.error)
            }
        } catch {
            return .failure(error)
        }
    }

    /// The longest `Retry-After` waited for: a longer one fails the input now rather than hold a worker.
    static let longestRetryAfter = 30.0

    /// `get`, tried again after a reset, a 5xx or a 429 (1, 2, 4 s apart, or after the seconds the server's
    /// `Retry-After` asks, up to `longestRetryAfter`) until `settings.attempts` tries; a try cut off
    /// after part of the body counts as progress, not as a failure, unless the server went quiet for `--io-timeout`
    /// (one that sends half of each answer and stalls would otherwise be asked again without end).
    func getRetrying(_ first: Int, through last: Int) throws(InputError) -> Response {
        var attempt = 1
        while true {
            switch get(first, through: last) {
            case .success(let response):
                return response
            case .failure(let failure):
                if let partial = failure.partial, !failure.timedOut { return partial }
                if let wait = failure.retryAfter, wait > Self.longestRetryAfter, case .http(let status, let reason) = failure.error {
                    throw .http(status: status, reason: reason + " (it asked to be tried again in \(Int(wait.rounded())) s, longer "
                                + "than the \(Int(Self.longestRetryAfter)) s FrameFarm waits)")
                }
                guard failure.retryable, attempt < settings.attempts else { throw failure.error }
                Thread.sleep(forTimeInterval: max(failure.retryAfter ?? 0, Double(1 << (attempt - 1))))
                attempt += 1
            }
        }
    }

    /// What the callbacks collect: the last response's status line and headers, and its body up to `limit`.
    private final class Collector {
        let limit: Int
        var status = 0
        var reason = ""
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var cutOff = false
        /// When the last byte came (or the request started), and how long the server may then send nothing.
        var lastActivity = Date()
        var idleLimit = 30.0

        let keepsWhole: Bool

        init(limit: Int, keepsWhole: Bool) {
            self.limit = limit
            self.keepsWhole = keepsWhole
        }
    }

    /// libcurl's header callback: one line a call, a status line at the start of each response.
    private static let headerLine: framefarm_curl_data_callback = { data, size, count, context in
        let length = size * count
        guard let data, let context else { return length }
        let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
        collector.lastActivity = Date()
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            collector.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            collector.reason = parts.count > 2 ? String(parts[2]) : ""
            collector.headers = [:]
            collector.body = []
        } else if let colon = line.firstIndex(of: ":") {
            collector.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return length
    }

    /// libcurl's progress callback, called at least once a second: stops a request whose server has sent nothing
    /// for the idle limit.
    private static let progress: framefarm_curl_progress_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
        return Date().timeIntervalSince(collector.lastActivity) > collector.idleLimit ? 1 : 0
    }

    /// libcurl's body callback: keeps at most `limit` bytes, then stops the transfer (a server that ignored the
    /// range would otherwise send the whole file); with `keepsWhole`, the whole of a 200 small enough to be read
    /// whole, which would otherwise be asked for again at once (`RemoteReader.keepWhole`).
    private static let bodyBytes: framefarm_curl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
        collector.lastActivity = Date()
        let length = size * count
        // A redirect's body (nginx's little page) is not the file's, and must not count against the range.
        if (300...399).contains(collector.status) { return length }
        var limit = collector.limit
        if collector.keepsWhole, collector.status == 200, let whole = collector.headers["content-length"].flatMap({ Int($0) }),
           whole <= RemoteReader.wholeObjectLimit {
            limit = max(limit, whole)
        }
        let kept = min(length, limit - collector.body.count)
        collector.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: kept).bindMemory(to: UInt8.self))
        guard kept == length else {
            collector.cutOff = true
            return 0
        }
        return length
    }
}

/// What tells one version of a remote input from another, as its server says: the resume key of an http(s)
/// input, in place of a file's size and modification time. Asked with a one-byte range GET (`Range: bytes=0-0`)
/// rather than HEAD: a presigned URL is signed for one method, and object stores refuse a HEAD made with a GET's
/// signature. The request also gives the input's failure line (a status, a refused connection, a timeout, a
/// certificate) before anything else is done with it.
public struct RemoteIdentity: Sendable, Equatable {
    public var sizeBytes: Int
    public var etag: String?
    /// `Last-Modified`, seconds since 1970.
    public var lastModifiedSeconds: Double?

    /// Asks the server for `name`'s identity (the whole URL behind it, `RemoteInput.location`).
    public static func fetch(_ name: String) throws(InputError) -> RemoteIdentity {
        let client = try RangeClient(name: name)
        let response = try client.getRetrying(0, through: 0)
        if response.status == 416 {
            // No byte 0: an empty object (`Content-Range: bytes */0`).
            return RemoteIdentity(sizeBytes: 0, etag: response.headers["etag"], lastModifiedSeconds: nil)
        }
        // A server that ignores ranges answers 200 with the whole object: readable whole when it is small enough.
        guard response.status == 206 || response.objectSize.map({ $0 <= RemoteReader.wholeObjectLimit }) == true else {
            throw .connectionFailed(RemoteReader.noRangesMessage)
        }
        guard let size = response.objectSize else {
            throw .connectionFailed("the server did not say the file's size (no Content-Range total)")
        }
        let modified = response.headers["last-modified"].map { curl_getdate($0, nil) }.flatMap { $0 >= 0 ? Double($0) : nil }
        return RemoteIdentity(sizeBytes: size, etag: response.headers["etag"], lastModifiedSeconds: modified)
    }
}
