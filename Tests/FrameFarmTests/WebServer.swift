import Foundation
import FrameFarmSamples

/// A real web server for the http(s) input tests: Debian's nginx on 127.0.0.1 at free ports, configured from a
/// temporary folder, serving `root`; plus fault proxies in front of it (Tests/Servers/fault_proxy.py). Every
/// process it starts is stopped by its process id when the value goes away, whatever the test did.
final class WebServer {
    /// Skipped only where nginx cannot be installed; CI must run these tests (`make test` installs nginx).
    static let available = LocalWebServer.executable != nil || ProcessInfo.processInfo.environment["CI"] != nil

    /// Declared first, so that it stops before its folder is removed.
    private let nginx: LocalWebServer
    let folder: TemporaryDirectory
    /// Files served at `http://127.0.0.1:<port>/...`.
    let root: String
    let port: Int
    let tlsPort: Int
    /// The https server's self-signed certificate (PEM): trusted only through `--ca-file`.
    let certificate: String
    private var proxies: [Process] = []

    init() throws {
        folder = TemporaryDirectory()
        root = folder.file("www")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        port = try LocalWebServer.freePort()
        tlsPort = try LocalWebServer.freePort()
        certificate = folder.file("server.pem")
        let key = folder.file("server.key")
        try Self.runQuietly("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                                                 "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                                                 "-keyout", key, "-out", certificate])
        // /private/ wants a bearer token; /moved/ redirects to /videos/; /go/NAME-EXT is a short link to
        // /videos/show/NAME.EXT (and nothing else under /go/ is there); /forbidden/ always refuses. /expiring/
        // serves /videos/ to requests from byte 0 only and refuses the rest, as a signature that expires after the
        // first reads. /moved-private/ redirects to /private/ on the same origin; /elsewhere/ redirects to
        // /keyed/ on another host name (localhost), which refuses any request that carries credentials (418), and
        // /elsewhere-private/ to /private/ on localhost, which then wants the token it is not sent.
        // /cdn-down/ answers everything with 503, as a CDN that is down. /throttled/ serves /videos/ two requests a second and answers those that come faster with 429 and
        // `Retry-After: 1`, as an object store slows a client down. /maintenance/ answers 503 with `Retry-After: 120`.
        let server = """
                map "$http_authorization$http_x_api_key" $carries_credentials { "" 0; default 1; }
                limit_req_zone $server_port zone=throttle:1m rate=2r/s;
                server {
                    listen 127.0.0.1:\(port);
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    root \(root);
                    location /forbidden/ { return 403; }
                    location /to-ftp/ { return 302 ftp://127.0.0.1:\(port)/videos/clip.mp4; }
                    location /no-ranges/ {
                        max_ranges 0;
                        alias \(root)/videos/;
                    }
                    location /moved/ { rewrite ^/moved/(.*)$ /videos/$1 redirect; }
                    location /go/ { rewrite ^/go/(\\w+)-(\\w+)$ /videos/show/$1.$2 redirect; }
                    location /expiring/ {
                        if ($http_range !~ "^bytes=0-") { return 403; }
                        alias \(root)/videos/;
                    }
                    location /cdn-down/ { return 503; }
                    location /maintenance/ {
                        add_header Retry-After 120 always;
                        return 503;
                    }
                    location /throttled/ {
                        limit_req zone=throttle;
                        limit_req_status 429;
                        add_header Retry-After 1 always;
                        alias \(root)/videos/;
                    }
                    location /moved-private/ { rewrite ^/moved-private/(.*)$ /private/$1 redirect; }
                    location /elsewhere/ { return 302 http://localhost:\(port)/keyed$uri; }
                    location /elsewhere-private/ { rewrite ^/elsewhere-private/(.*)$ http://localhost:\(port)/private/$1 redirect; }
                    location /keyed/ {
                        if ($carries_credentials) { return 418; }
                        rewrite ^/keyed/elsewhere/(.*)$ /videos/$1 last;
                    }
                    location /private/ {
                        if ($http_authorization != "Bearer opensesame") { return 401; }
                        alias \(root)/videos/;
                    }
                }
            """
        nginx = try LocalWebServer(folder: folder.file("nginx"), servers: server, ports: [port, tlsPort])
    }

    deinit {
        for proxy in proxies where proxy.isRunning { kill(proxy.processIdentifier, SIGTERM) }
        for proxy in proxies {
            for _ in 0..<50 where proxy.isRunning { usleep(100_000) }
            if proxy.isRunning { kill(proxy.processIdentifier, SIGKILL) }
            proxy.waitUntilExit()
        }
    }

    func url(_ path: String, port: Int? = nil) -> String { "http://127.0.0.1:\(port ?? self.port)/\(path)" }
    func tlsURL(_ path: String) -> String { "https://127.0.0.1:\(tlsPort)/\(path)" }

    /// Starts a fault proxy (`relay`, `drop` after `bytes`, `stall`, or `slow`: each request `bytes` ms late, the
    /// most connections open at once written to `peakFile`) in front of the server; returns its port.
    func proxy(_ mode: String, bytes: Int = 32768, peakFile: String? = nil) throws -> Int {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Servers/fault_proxy.py").path
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        proxy.arguments = [script, mode, String(port), String(bytes)] + (peakFile.map { [$0] } ?? [])
        let output = Pipe()
        proxy.standardOutput = output
        // Its standard input stays open while this server lives: the proxy also stops when the test process dies.
        proxy.standardInput = Pipe()
        try proxy.run()
        proxies.append(proxy)
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw LocalWebServer.ServerError("the fault proxy did not say its port: \(line)")
        }
        return port
    }

    /// The access log's lines so far (`LocalWebServer.accessLog`).
    var accessLog: [String] { nginx.accessLog }

    /// The requests for `path` so far: the Range header asked, and the body bytes the server sent.
    func requests(for path: String) -> [(range: String, bytesSent: Int)] {
        accessLog.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 6, parts[1].hasPrefix(path), let sent = Int(parts[5]) else { return nil }
            return (parts[3].trimmingCharacters(in: CharacterSet(charactersIn: "\"")), sent)
        }
    }

    private static func runQuietly(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw LocalWebServer.ServerError("\(executable) \(arguments[0]) failed") }
    }
}
