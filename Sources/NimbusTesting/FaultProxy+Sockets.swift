import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP socket on loopback, for the fault proxy's threads.
final class ProxySocket: @unchecked Sendable {
    let fd: Int32
    /// Bytes read past the end of the last message (HTTP keep-alive, pipelining).
    var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// Connects to `127.0.0.1:port`, or returns nil when nothing listens there.
    static func connect(port: Int, timeout: TimeInterval) -> ProxySocket? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { Glibc.close(fd); return nil }
        // With nothing listening on `port`, Linux may pick `port` itself as the local port and
        // connect the socket to itself, which would hold the port a restarting server needs.
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard Int(UInt16(bigEndian: local.sin_port)) != port else { Glibc.close(fd); return nil }
        let socket = ProxySocket(fd: fd)
        socket.setTimeout(timeout)
        return socket
    }

    /// A listening socket on a free loopback port; returns it and the port.
    static func listen() throws -> (ProxySocket, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, Glibc.listen(fd, 128) == 0 else {
            Glibc.close(fd)
            throw FaultProxyError("the fault proxy could not listen on loopback (errno \(errno))")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (ProxySocket(fd: fd), Int(UInt16(bigEndian: address.sin_port)))
    }

    func accept() -> ProxySocket? {
        let client = Glibc.accept(fd, nil, nil)
        return client >= 0 ? ProxySocket(fd: client) : nil
    }

    func setTimeout(_ seconds: TimeInterval) {
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads what is available (at least one byte); nil at the end of the stream or on error.
    func readSome() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Array(chunk[0..<count])
    }

    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Ends both directions now (wakes a thread blocked in `recv`), without releasing the descriptor.
    func shutdownBoth() { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    func close() { Glibc.close(fd) }

    // MARK: HTTP/1.1 framing

    /// Reads one HTTP message (request or response) verbatim: its head and a body framed by
    /// `Content-Length` or chunked encoding (or, for a response with neither, up to the end of
    /// the stream). Returns nil when the peer closed before a whole message arrived.
    func readMessage(isResponse: Bool) -> HTTPMessage? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if let end = buffer.firstRange(of: separator)?.upperBound { headEnd = end; break }
            guard let more = readSome() else { return nil }
            buffer += more
        }
        let head = Array(buffer[0..<headEnd!])
        buffer.removeFirst(headEnd!)
        let message = HTTPMessage(head: head, body: [])
        if let length = message.header("content-length").flatMap(Int.init) {
            while buffer.count < length {
                guard let more = readSome() else { return nil }
                buffer += more
            }
            return HTTPMessage(head: head, body: Array(buffer.prefix(length))).consuming(from: self, count: length)
        }
        if message.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            var offset = 0
            while true {
                // Each chunk: size line, data, CRLF; the last has size 0 and ends with an empty line.
                while buffer[offset...].firstRange(of: [13, 10]) == nil {
                    guard let more = readSome() else { return nil }
                    buffer += more
                }
                let lineEnd = buffer[offset...].firstRange(of: [13, 10])!
                let sizeText = String(decoding: buffer[offset..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                if size == 0 {
                    while buffer[lineEnd.upperBound...].firstRange(of: [13, 10]) == nil {
                        guard let more = readSome() else { return nil }
                        buffer += more
                    }
                    let end = buffer[lineEnd.upperBound...].firstRange(of: [13, 10])!.upperBound
                    return HTTPMessage(head: head, body: Array(buffer[0..<end])).consuming(from: self, count: end)
                }
                let chunkEnd = lineEnd.upperBound + size + 2
                while buffer.count < chunkEnd {
                    guard let more = readSome() else { return nil }
                    buffer += more
                }
                offset = chunkEnd
            }
        }
        if isResponse && !message.isBodiless {
            while let more = readSome() { buffer += more }
            defer { buffer.removeAll() }
            return HTTPMessage(head: head, body: buffer)
        }
        return message
    }
}

/// One HTTP/1.1 message as bytes: its head (start line and headers, ending with an empty
/// line) and its body as framed on the wire.
struct HTTPMessage: Sendable {
    var head: [UInt8]
    var body: [UInt8]

    var bytes: [UInt8] { head + body }
    var startLine: String { String(decoding: head.prefix { $0 != 13 }, as: UTF8.self) }
    /// The response's status code.
    var status: Int { Int(startLine.split(separator: " ").dropFirst().first ?? "") ?? 0 }
    var isBodiless: Bool { status == 204 || status == 304 || (100..<200).contains(status) }

    func header(_ name: String) -> String? {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name { return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// The same message with a header set (replacing any of that name).
    func setting(_ name: String, _ value: String) -> HTTPMessage {
        var lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        lines.removeAll { line in line.split(separator: ":").first.map { $0.lowercased() == name.lowercased() } ?? false }
        lines.append("\(name): \(value)")
        return HTTPMessage(head: Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8), body: body)
    }

    fileprivate func consuming(from socket: ProxySocket, count: Int) -> HTTPMessage {
        socket.buffer.removeFirst(count)
        return self
    }

    /// A JSON error answer as the server would send it.
    static func error(status: Int, reason: String, code: String, message: String, retryAfter: Double? = nil) -> HTTPMessage {
        var json = #"{"error":{"code":"\#(code)","message":"\#(message)""#
        if let retryAfter { json += #","retryAfter":\#(retryAfter)"# }
        json += "}}"
        var head = "HTTP/1.1 \(status) \(reason)\r\ncontent-type: application/json\r\ncontent-length: \(json.utf8.count)\r\n"
        if let retryAfter { head += "retry-after: \(Int(retryAfter.rounded(.up)))\r\n" }
        return HTTPMessage(head: Array((head + "\r\n").utf8), body: Array(json.utf8))
    }
}

/// Why the fault proxy could not start.
public struct FaultProxyError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
