import CCurl
import Foundation

/// What tells one version of a remote input from another, as its server says: the resume key of an http(s)
/// input, in place of a file's size and modification time. Asked for with a one-byte range GET (`Range: bytes=0-0`)
/// rather than HEAD: a presigned URL is signed for one method, and object stores refuse a HEAD on a GET's
/// signature. The request also gives the clearest line for an input that cannot be read (the status, a refused
/// connection, a timeout, a certificate), before FFmpeg opens it.
public struct RemoteIdentity: Sendable, Equatable {
    /// The whole object's size (`Content-Range`'s total, or `Content-Length` when the range was ignored).
    public var sizeBytes: Int
    public var etag: String?
    /// `Last-Modified`, seconds since 1970.
    public var lastModifiedSeconds: Double?

    static let userAgent = "FrameFarm"
    /// Body bytes read before a server that ignores the range is cut off (its headers are all that is needed).
    private static let bodyLimit = 64 * 1024
    private static let initialized: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Asks the server for `name`'s identity (the whole URL behind it, `RemoteInput.location`), following
    /// redirects, retrying resets and 5xx answers with backoff.
    public static func fetch(_ name: String) throws(InputError) -> RemoteIdentity {
        let settings = RemoteInput.settings
        var attempt = 1
        while true {
            switch request(RemoteInput.location(of: name), settings: settings) {
            case .success(let identity):
                return identity
            case .failure(let failure):
                guard failure.retryable, attempt < settings.attempts else { throw failure.error }
                Thread.sleep(forTimeInterval: Double(1 << (attempt - 1)))
                attempt += 1
            }
        }
    }

    private struct Failure: Error {
        var error: InputError
        var retryable: Bool
    }

    /// The response as the header callback collects it: the last response's status and headers (a redirect's
    /// are replaced by those of the response it leads to), and how much body came.
    private final class Response {
        var status = 0
        var reason = ""
        var headers: [String: String] = [:]
        var bodyBytes = 0
    }

    private static func request(_ url: String, settings: RemoteSettings) -> Result<RemoteIdentity, Failure> {
        initialized
        guard let curl = curl_easy_init() else {
            return .failure(Failure(error: .connectionFailed("cannot start an http request (libcurl)"), retryable: false))
        }
        defer { curl_easy_cleanup(curl) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for header in settings.headers { headerList = curl_slist_append(headerList, header) }
        defer { curl_slist_free_all(headerList) }
        let response = Response()
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let timeout = max(1, Int(settings.timeoutSeconds.rounded(.up)))
        let code: CURLcode = withExtendedLifetime(response) {
            errorText.withUnsafeMutableBufferPointer { errorBuffer in
                framefarm_curl_set_string(curl, CURLOPT_URL, url)
                framefarm_curl_set_string(curl, CURLOPT_RANGE, "0-0")
                framefarm_curl_set_string(curl, CURLOPT_USERAGENT, userAgent)
                framefarm_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
                framefarm_curl_set_long(curl, CURLOPT_MAXREDIRS, 10)
                // Threads of the batch each make requests: no signals (curl's DNS timeouts would use SIGALRM).
                framefarm_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
                framefarm_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, timeout)
                // Less than a byte a second for `timeout` seconds: a server that accepts and never answers.
                framefarm_curl_set_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
                framefarm_curl_set_long(curl, CURLOPT_LOW_SPEED_TIME, timeout)
                if let caFile = settings.caFile { framefarm_curl_set_string(curl, CURLOPT_CAINFO, caFile) }
                framefarm_curl_set_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
                framefarm_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer.baseAddress))
                let context = Unmanaged.passUnretained(response).toOpaque()
                framefarm_curl_set_callback(curl, CURLOPT_HEADERFUNCTION, headerLine)
                framefarm_curl_set_pointer(curl, CURLOPT_HEADERDATA, context)
                framefarm_curl_set_callback(curl, CURLOPT_WRITEFUNCTION, bodyBytes)
                framefarm_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
                return curl_easy_perform(curl)
            }
        }
        let message = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let detail = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        // curl's words name the host, not the query; a redirect's target could still carry one.
        let safeDetail = detail.split(separator: " ").map { word in
            RemoteInput.isRemote(String(word)) ? RemoteInput.name(of: String(word)) : String(word)
        }.joined(separator: " ")
        switch code {
        case CURLE_OK:
            break
        case CURLE_WRITE_ERROR where response.status == 200:
            break  // the body a range-less server sent, cut off on purpose
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(Failure(error: .timedOut(seconds: settings.timeoutSeconds), retryable: false))
        case CURLE_COULDNT_RESOLVE_HOST:
            return .failure(Failure(error: .connectionFailed("cannot resolve the host name: \(safeDetail)"), retryable: false))
        case CURLE_COULDNT_CONNECT:
            // The system's reason ("Connection refused", "No route to host") says more than curl's summary.
            var systemError = 0
            framefarm_curl_get_long(curl, CURLINFO_OS_ERRNO, &systemError)
            let reason = systemError != 0 ? String(cString: strerror(Int32(systemError))) : safeDetail
            return .failure(Failure(error: .connectionFailed("cannot connect: \(reason)"), retryable: false))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_CIPHER:
            return .failure(Failure(error: .tlsFailure(safeDetail), retryable: false))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(Failure(error: .connectionFailed("more than 10 redirects"), retryable: false))
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return .failure(Failure(error: .connectionFailed("connection lost: \(safeDetail)"), retryable: true))
        default:
            return .failure(Failure(error: .connectionFailed(safeDetail), retryable: false))
        }
        switch response.status {
        case 200, 206:
            let total = response.headers["content-range"].flatMap { $0.split(separator: "/").last }.flatMap { Int($0) }
            guard let size = total ?? (response.status == 200 ? response.headers["content-length"].flatMap { Int($0) } : nil) else {
                return .failure(Failure(error: .connectionFailed("the server did not say the file's size"), retryable: false))
            }
            let modified = response.headers["last-modified"].map { curl_getdate($0, nil) }.flatMap { $0 >= 0 ? Double($0) : nil }
            return .success(RemoteIdentity(sizeBytes: size, etag: response.headers["etag"], lastModifiedSeconds: modified))
        case 416:
            // No byte 0: an empty object (`Content-Range: bytes */0`).
            return .success(RemoteIdentity(sizeBytes: 0, etag: response.headers["etag"], lastModifiedSeconds: nil))
        default:
            let reason = response.reason.isEmpty ? "error" : response.reason
            return .failure(Failure(error: .http(status: response.status, reason: reason),
                                    retryable: (500...599).contains(response.status)))
        }
    }

    /// libcurl's header callback: one line a call, a status line at the start of each response.
    private static let headerLine: framefarm_curl_data_callback = { data, size, count, context in
        let length = size * count
        guard let data, let context else { return length }
        let response = Unmanaged<Response>.fromOpaque(context).takeUnretainedValue()
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            response.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            response.reason = parts.count > 2 ? String(parts[2]) : ""
            response.headers = [:]
        } else if let colon = line.firstIndex(of: ":") {
            response.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return length
    }

    /// libcurl's body callback: counts the bytes and stops a body that is more than a range's byte.
    private static let bodyBytes: framefarm_curl_data_callback = { _, size, count, context in
        guard let context else { return 0 }
        let response = Unmanaged<Response>.fromOpaque(context).takeUnretainedValue()
        response.bodyBytes += size * count
        return response.bodyBytes > bodyLimit ? 0 : size * count
    }
}
