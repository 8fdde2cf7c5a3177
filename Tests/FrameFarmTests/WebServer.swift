import Foundation

/// A real web server for the http(s) input tests: Debian's nginx on 127.0.0.1 at free ports, configured from a
/// temporary folder, serving `root`; plus fault proxies in front of it (Tests/Servers/fault_proxy.py). Every
/// process it starts is stopped by its process id when the value goes away, whatever the test did.
final class WebServer {
    static let nginx: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Skipped only where nginx cannot be installed; CI must run these tests (`make test` installs nginx).
    static let available = nginx != nil || ProcessInfo.processInfo.environment["CI"] != nil

    let folder: TemporaryDirectory
    /// Files served at `http://127.0.0.1:<port>/...`.
    let root: String
    let port: Int
    let tlsPort: Int
    /// The https server's self-signed certificate (PEM): trusted only through `--ca-file`.
    let certificate: String
    private var processes: [Process] = []

    init() throws {
        folder = TemporaryDirectory()
        root = folder.file("www")
        for path in [root, folder.file("logs"), folder.file("temp")] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        port = try Self.freePort()
        tlsPort = try Self.freePort()
        certificate = folder.file("server.pem")
        let key = folder.file("server.key")
        try Self.runQuietly("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                                                 "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                                                 "-keyout", key, "-out", certificate])
        let temp = folder.file("temp")
        // /private/ wants a bearer token; /moved/ redirects to /videos/; /forbidden/ always refuses.
        let configuration = """
            daemon off;
            master_process off;
            pid \(folder.file("nginx.pid"));
            error_log \(folder.file("logs/error.log"));
            events { worker_connections 256; }
            http {
                log_format ranges '$request "$http_range" $status $body_bytes_sent';
                access_log \(folder.file("logs/access.log")) ranges;
                client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp);
                uwsgi_temp_path \(temp); scgi_temp_path \(temp);
                types { video/mp4 mp4; }
                server {
                    listen 127.0.0.1:\(port);
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    root \(root);
                    location /forbidden/ { return 403; }
                    location /moved/ { rewrite ^/moved/(.*)$ /videos/$1 redirect; }
                    location /private/ {
                        if ($http_authorization != "Bearer opensesame") { return 401; }
                        alias \(root)/videos/;
                    }
                }
            }
            """
        let configurationFile = folder.write("nginx.conf", Data(configuration.utf8))
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Self.nginx ?? "/usr/sbin/nginx")
        server.arguments = ["-c", configurationFile, "-p", folder.path, "-e", folder.file("logs/error.log")]
        server.standardError = FileHandle.nullDevice
        try server.run()
        processes.append(server)
        try waitUntilListening(port)
        try waitUntilListening(tlsPort)
    }

    deinit {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        for process in processes {
            for _ in 0..<50 where process.isRunning { usleep(100_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    func url(_ path: String, port: Int? = nil) -> String { "http://127.0.0.1:\(port ?? self.port)/\(path)" }
    func tlsURL(_ path: String) -> String { "https://127.0.0.1:\(tlsPort)/\(path)" }

    /// Starts a fault proxy (`relay`, `drop` after `bytes`, or `stall`) in front of the server; returns its port.
    func proxy(_ mode: String, bytes: Int = 32768) throws -> Int {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Servers/fault_proxy.py").path
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        proxy.arguments = [script, mode, String(port), String(bytes)]
        let output = Pipe()
        proxy.standardOutput = output
        // Its standard input stays open while this server lives: the proxy also stops when the test process dies.
        proxy.standardInput = Pipe()
        try proxy.run()
        processes.append(proxy)
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ServerError("the fault proxy did not say its port: \(line)")
        }
        return port
    }

    /// The access log's lines so far (what the server was asked for, query strings included), each
    /// `GET /path HTTP/1.1 "bytes=A-B" STATUS BODY_BYTES_SENT`.
    var accessLog: [String] {
        ((try? String(contentsOfFile: folder.file("logs/access.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// The requests for `path` so far: the Range header asked, and the body bytes the server sent.
    func requests(for path: String) -> [(range: String, bytesSent: Int)] {
        accessLog.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 6, parts[1].hasPrefix(path), let sent = Int(parts[5]) else { return nil }
            return (parts[3].trimmingCharacters(in: CharacterSet(charactersIn: "\"")), sent)
        }
    }

    struct ServerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private func waitUntilListening(_ port: Int) throws {
        for _ in 0..<100 {
            if Self.connects(port) { return }
            usleep(50_000)
        }
        throw ServerError("nginx did not start listening on port \(port): "
                          + ((try? String(contentsOfFile: folder.file("logs/error.log"), encoding: .utf8)) ?? ""))
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
    static func freePort() throws -> Int {
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

    private static func runQuietly(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServerError("\(executable) \(arguments[0]) failed") }
    }
}
