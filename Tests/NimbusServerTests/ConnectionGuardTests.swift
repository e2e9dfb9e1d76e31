import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Idle connections and connections per address are bounded", .stopsServers)
struct ConnectionGuardTests {
    /// Whether the server closed the socket within `timeout`: a read returns end of file
    /// (or a reset) instead of timing out.
    static func closedByServer(_ fd: Int32, within timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                var time = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
                var byte: UInt8 = 0
                let count = read(fd, &byte, 1)
                continuation.resume(returning: count == 0 || (count < 0 && errno == ECONNRESET))
            }.start()
        }
    }

    /// Reads an answer on a raw connection, on a thread of its own (a blocking read on the
    /// cooperative pool would starve the in-process server), with a long timeout: on a loaded
    /// machine the server may take seconds to accept the connection.
    static func readsAnswer(_ fd: Int32) async -> (bytes: Int, errno: Int32) {
        await withCheckedContinuation { continuation in
            Thread {
                var time = timeval(tv_sec: 30, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = read(fd, &buffer, buffer.count)
                continuation.resume(returning: (count, count < 0 ? errno : 0))
            }.start()
        }
    }

    @Test("a connection that sends nothing is closed after the idle timeout; a busy one is not")
    func idleTimeout() async throws {
        let server = try await TestServer.start(.sqlite) { $0.idleTimeout = .milliseconds(300) }
        let idle = try RawHTTP.connect(port: server.port)
        defer { close(idle) }
        #expect(await Self.closedByServer(idle, within: .seconds(20)))
        // A keep-alive connection that answered a request is closed once it goes quiet too.
        let used = try RawHTTP.connect(port: server.port)
        defer { close(used) }
        try RawHTTP.send(used, Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let usedAnswer = await Self.readsAnswer(used)
        #expect(usedAnswer.bytes > 0, "read \(usedAnswer.bytes), errno \(usedAnswer.errno)")
        #expect(await Self.closedByServer(used, within: .seconds(20)))
    }

    @Test("connections beyond the per-address cap are closed at once; a freed slot is usable again")
    func perAddressCap() async throws {
        let server = try await TestServer.start(.sqlite) { $0.maximumConnectionsPerAddress = 5 }
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<5 { held.append(try RawHTTP.connect(port: server.port)) }
        // The accepted connections are still served.
        let first = held[0]
        try RawHTTP.send(first, Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let firstAnswer = await Self.readsAnswer(first)
        #expect(firstAnswer.bytes > 0, "read \(firstAnswer.bytes), errno \(firstAnswer.errno)")
        for _ in 0..<20 {
            let extra = try RawHTTP.connect(port: server.port)
            #expect(await Self.closedByServer(extra, within: .seconds(20)))
            close(extra)
        }
        close(held.removeLast())
        var answered = false
        for _ in 0..<100 where !answered {
            // The server counts the close when it sees it; retry briefly.
            if let reply = try? await RawHTTP.exchange(port: server.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
                reply.status == 200
            {
                answered = true
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(answered)
    }
}
