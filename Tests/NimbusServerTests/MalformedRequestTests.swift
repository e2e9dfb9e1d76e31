import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// Requests the HTTP decoder cannot parse are answered (400, or 414 / 431 for a request line
/// or headers too large) and their connection closed, instead of being held unanswered.
@Suite("Malformed requests are answered and their connection closed", .stopsServers)
struct MalformedRequestTests {
    /// What came back on a raw connection: everything read until the server closed it, and
    /// whether it closed it (`false` when the read timed out first).
    struct Outcome: Sendable {
        var text: String
        var closed: Bool

        /// The status of the first response line, 0 when there is none.
        var status: Int {
            guard text.hasPrefix("HTTP/1.1 ") else { return 0 }
            return Int(text.dropFirst(9).prefix(3)) ?? 0
        }
    }

    /// Sends `bytes` and reads until the server closes the connection, on a thread of its
    /// own, giving up after 30 s without a byte (the server never answering).
    static func send(_ bytes: Data, port: Int) async throws -> Outcome {
        let fd = try RawHTTP.connect(port: port, timeout: .seconds(30))
        return await withCheckedContinuation { continuation in
            Thread {
                defer { close(fd) }
                _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                var received = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 16_384)
                var closed = false
                while true {
                    let count = read(fd, &buffer, buffer.count)
                    if count == 0 || (count < 0 && errno == ECONNRESET) {
                        closed = true
                        break
                    }
                    if count < 0 { break }
                    received += buffer[0..<count]
                }
                continuation.resume(returning: Outcome(text: String(decoding: received, as: UTF8.self), closed: closed))
            }.start()
        }
    }

    static let host = "Host: 127.0.0.1\r\n"

    /// The probes of issue 27, with the status each gets.
    static let probes: [(name: String, request: Data, status: Int)] = [
        ("an HTTP/0.9 request line", Data("GET /health\r\n\r\n".utf8), 400),
        ("a NUL byte in a header", Data("GET /health HTTP/1.1\r\n\(host)X-Bad: a\u{0}b\r\n\r\n".utf8), 400),
        ("an invalid character in the method", Data("G(T /health HTTP/1.1\r\n\(host)\r\n".utf8), 400),
        ("Content-Length: -1", Data("POST /health HTTP/1.1\r\n\(host)Content-Length: -1\r\n\r\n".utf8), 400),
        ("a header value over 80 KB", Data("GET /health HTTP/1.1\r\n\(host)X-Big: \(String(repeating: "a", count: 90_000))\r\n\r\n".utf8), 431),
        ("5,000 headers", Data(("GET /health HTTP/1.1\r\n\(host)" + (0..<5_000).map { "X-H\($0): 1\r\n" }.joined() + "\r\n").utf8), 431),
        ("a 100 KB URL", Data("GET /\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\n\(host)\r\n".utf8), 414),
    ]

    @Test("each malformed first request is answered with its status and a JSON error, then closed", arguments: 0..<probes.count)
    func firstRequest(_ index: Int) async throws {
        let probe = Self.probes[index]
        let server = try await TestServer.start(.sqlite)
        let outcome = try await Self.send(probe.request, port: server.port)
        #expect(outcome.status == probe.status, "\(probe.name): got \(outcome.text.prefix(200).debugDescription)")
        #expect(outcome.text.contains(#""code":"invalidArguments""#), "\(probe.name): no JSON error")
        #expect(outcome.closed, "\(probe.name): the connection stayed open")
    }

    @Test("a malformed request after a good one on the same connection is answered 400 and closed; the good one's answer is intact")
    func afterGoodRequest() async throws {
        let server = try await TestServer.start(.sqlite)
        let good = "GET /health HTTP/1.1\r\n\(Self.host)\r\n"
        let outcome = try await Self.send(Data((good + "GET /health HTTP/1.1\r\n\(Self.host)X-Bad: a\u{0}b\r\n\r\n").utf8), port: server.port)
        #expect(outcome.status == 200, "\(outcome.text.prefix(200).debugDescription)")
        #expect(outcome.text.contains("HTTP/1.1 400"), "\(outcome.text.debugDescription)")
        #expect(outcome.closed)
    }

    @Test("bare-LF line endings are answered 400 (not held) and the connection closed")
    func bareLineFeeds() async throws {
        let server = try await TestServer.start(.sqlite)
        let outcome = try await Self.send(Data("GET /health HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n".utf8), port: server.port)
        #expect(outcome.status == 400, "\(outcome.text.prefix(200).debugDescription)")
        #expect(outcome.closed)
    }
}
