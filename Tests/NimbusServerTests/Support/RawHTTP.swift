import Foundation

/// One HTTP/1.1 exchange over a plain socket, for requests an HTTP client library rewrites
/// or refuses (WebSocket upgrades, odd headers) and for holding connections open.
enum RawHTTP {
    /// A response head and body as read from the socket.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The JSON error of the body, when it has one.
        var errorCode: String? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let error = object["error"] as? [String: Any]
            else { return nil }
            return error["code"] as? String
        }
    }

    /// A WebSocket upgrade request for `path`, with `Authorization` when a header value is given.
    static func upgradeRequest(path: String, authorization: String?) -> String {
        var lines = [
            "GET \(path) HTTP/1.1", "Host: 127.0.0.1", "Connection: Upgrade", "Upgrade: websocket",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        ]
        if let authorization { lines.append("Authorization: \(authorization)") }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Sends `request` and reads the response: its head, then (except for 101) the body up to
    /// `Content-Length` or until the server closes.
    ///
    /// The blocking socket calls run on a thread of their own: on the cooperative pool they
    /// would starve the in-process server of the threads it needs to answer.
    static func exchange(port: Int, _ request: String, timeout: Duration = .seconds(10)) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try blockingExchange(port: port, request, timeout: timeout) }) }.start()
        }
    }

    private static func blockingExchange(port: Int, _ request: String, timeout: Duration) throws -> Response {
        try {
            let fd = try connect(port: port, timeout: timeout)
            defer { close(fd) }
            try send(fd, Data(request.utf8))
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 16_384)
            func readMore() throws -> Bool {
                let count = read(fd, &buffer, buffer.count)
                if count < 0 { throw HarnessError("read failed: errno \(errno)") }
                received.append(contentsOf: buffer[0..<count])
                return count > 0
            }
            var headEnd: Range<Data.Index>?
            while headEnd == nil {
                guard try readMore() else { throw HarnessError("connection closed before a response head: \(String(decoding: received, as: UTF8.self))") }
                headEnd = received.range(of: Data("\r\n\r\n".utf8))
            }
            let head = String(decoding: received[..<headEnd!.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let status = Int(head[0].split(separator: " ").dropFirst().first ?? "") ?? 0
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            var body = Data(received[headEnd!.upperBound...])
            if status != 101 {
                let length = headers["content-length"].flatMap(Int.init)
                while length.map({ body.count < $0 }) ?? true {
                    let before = received.count
                    guard try readMore() else { break }
                    body.append(received[before...])
                }
                // Anything after the declared body (a second response) is not this one's.
                if let length, body.count > length { body = Data(body.prefix(length)) }
            }
            return Response(status: status, headers: headers, body: body)
        }()
    }

    /// Opens a TCP connection to the loopback port with receive and send timeouts.
    static func connect(port: Int, timeout: Duration = .seconds(10)) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed: errno \(errno)") }
        var time = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw HarnessError("connect to port \(port) failed: errno \(errno)")
        }
        return fd
    }

    /// Writes all of `data`.
    static func send(_ fd: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { throw HarnessError("write failed: errno \(errno)") }
                offset += written
            }
        }
    }
}
