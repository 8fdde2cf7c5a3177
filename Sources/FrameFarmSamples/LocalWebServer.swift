import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx on 127.0.0.1, configured from a folder of its own (configuration, pid, logs, temporary files)
/// and stopped by its process id when the value goes away: the real server the http(s) input tests and the
/// bench's renditions scenario read from. The caller writes the `server { ... }` blocks; the access log records
/// each request with its query, Range header, status and body bytes sent.
public final class LocalWebServer {
    public static let executable: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The folder holding nginx.conf, logs/ and temp/.
    public let folder: String
    private let process: Process

    /// Starts nginx with `servers` (one or more `server { ... }` blocks) and waits until every port in `ports`
    /// accepts connections.
    public init(folder: String, servers: String, ports: [Int]) throws {
        guard let executable = Self.executable else { throw ServerError("nginx is not installed (apt-get install nginx)") }
        self.folder = folder
        let temp = folder + "/temp"
        for path in [folder + "/logs", temp] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let configuration = """
            daemon off;
            master_process off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/logs/error.log;
            events { worker_connections 256; }
            http {
                log_format ranges '$request "$http_range" $status $body_bytes_sent';
                access_log \(folder)/logs/access.log ranges;
                client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp);
                uwsgi_temp_path \(temp); scgi_temp_path \(temp);
                types {
                    video/mp4 mp4; application/vnd.apple.mpegurl m3u8; video/mp2t ts; text/html html; image/jpeg jpg;
                    image/png png; text/vtt vtt;
                }
            \(servers)
            }
            """
        try configuration.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", folder + "/nginx.conf", "-p", folder, "-e", folder + "/logs/error.log"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            for port in ports { try waitUntilListening(port) }
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    private func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<50 where process.isRunning { usleep(100_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The access log's lines so far (what the server was asked for, query strings included), each
    /// `GET /path HTTP/1.1 "bytes=A-B" STATUS BODY_BYTES_SENT`.
    public var accessLog: [String] {
        ((try? String(contentsOfFile: folder + "/logs/access.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// Body bytes the server has sent so far, all requests together.
    public var bytesSent: Int {
        accessLog.reduce(0) { $0 + (Int($1.split(separator: " ").last ?? "") ?? 0) }
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    private func waitUntilListening(_ port: Int) throws {
        for _ in 0..<100 {
            if Self.connects(port) { return }
            usleep(50_000)
        }
        throw ServerError("nginx did not start listening on port \(port): "
                          + ((try? String(contentsOfFile: folder + "/logs/error.log", encoding: .utf8)) ?? ""))
    }

    private static func connects(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nothing listens on now: bound to port 0, read back, released.
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw ServerError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
