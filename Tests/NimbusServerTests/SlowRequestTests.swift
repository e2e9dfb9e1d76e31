import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// Slow-drip ("slowloris") clients: a request's head and its body each have a deadline, so a
/// client that trickles bytes cannot hold a connection; an honest slow upload, a keep-alive
/// connection between requests and a push socket are not cut.
@Suite("Requests that drip are cut off; slow but steady ones are not", .stopsServers)
struct SlowRequestTests {
    /// What a drip achieved: whether every chunk was written before the server closed.
    struct Drip: Sendable {
        var sentAll: Bool
        var chunksSent: Int
    }

    /// Writes `chunks` one by one, `interval` apart, on a thread of its own, until one fails
    /// (the server closed the connection) or all are written.
    static func drip(_ fd: Int32, _ chunks: [Data], every interval: Duration) async -> Drip {
        await withCheckedContinuation { continuation in
            Thread {
                var sent = 0
                for chunk in chunks {
                    let written = chunk.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard written == chunk.count else { break }
                    sent += 1
                    Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
                }
                continuation.resume(returning: Drip(sentAll: sent == chunks.count, chunksSent: sent))
            }.start()
        }
    }

    static func lines(_ text: String) -> Data { Data(text.utf8) }

    @Test("headers dripped a line at a time are cut off at the head deadline; a head sent in two quick parts is answered")
    func slowHead() async throws {
        let server = try await TestServer.start(.sqlite) { $0.requestHeadTimeout = .seconds(1) }
        let fd = try RawHTTP.connect(port: server.port)
        defer { close(fd) }
        // 100 header lines, 200 ms apart: 20 s, far past the 1 s deadline even on a loaded machine.
        let chunks = [Self.lines("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")] + (0..<100).map { Self.lines("X-Drip-\($0): 1\r\n") }
        let drip = await Self.drip(fd, chunks, every: .milliseconds(200))
        #expect(!drip.sentAll, "the server kept a connection whose headers took 20 s")
        #expect(drip.chunksSent > 1, "the connection was closed before the head's deadline")

        let split = try RawHTTP.connect(port: server.port)
        defer { close(split) }
        _ = await Self.drip(split, [Self.lines("GET /health HTTP/1.1\r\n"), Self.lines("Host: 127.0.0.1\r\n\r\n")], every: .milliseconds(200))
        let answer = await ConnectionGuardTests.readsAnswer(split)
        #expect(answer.bytes > 0, "read \(answer.bytes), errno \(answer.errno)")
    }

    @Test("a keep-alive connection quiet between requests for longer than the head deadline serves the next request")
    func quietBetweenRequests() async throws {
        let server = try await TestServer.start(.sqlite) { $0.requestHeadTimeout = .seconds(1) }
        let fd = try RawHTTP.connect(port: server.port)
        defer { close(fd) }
        for round in 0..<2 {
            try RawHTTP.send(fd, Self.lines("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let answer = await ConnectionGuardTests.readsAnswer(fd)
            #expect(answer.bytes > 0, "round \(round): read \(answer.bytes), errno \(answer.errno)")
            try await Task.sleep(for: .milliseconds(2500))
        }
    }

    @Test("a body dripped far below the minimum rate is cut off; a slow but steady upload is answered")
    func slowBody() async throws {
        let server = try await TestServer.start(.sqlite) {
            $0.requestBodyTimeout = .seconds(1)
            $0.minimumRequestBodyRate = 1000
        }
        let alice = try await server.user("alice")
        try await alice.createZone("Z")
        let path = alice.zonePath("Z") + "/records/modify"
        func head(length: Int) -> Data {
            Self.lines("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(alice.token!)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n")
        }
        // 10 bytes every 200 ms of a 100 KB body: 50 B/s against a minimum of 1,000 B/s.
        let dripped = try RawHTTP.connect(port: server.port)
        defer { close(dripped) }
        let drip = await Self.drip(dripped, [head(length: 100_000)] + Array(repeating: Self.lines(String(repeating: " ", count: 10)), count: 100), every: .milliseconds(200))
        #expect(!drip.sentAll, "the server kept a connection whose body came at 50 B/s for 20 s")

        // 4,000 bytes at about 2,000 B/s: 2 s, within 1 s + 4,000 / 1,000 s.
        let body = "{\"saves\": []}" + String(repeating: " ", count: 4000 - 13)
        let chunks = [head(length: 4000)] + stride(from: 0, to: 4000, by: 500).map { start in
            Data(body.utf8.dropFirst(start).prefix(500))
        }
        let steady = try RawHTTP.connect(port: server.port)
        defer { close(steady) }
        let sent = await Self.drip(steady, chunks, every: .milliseconds(250))
        #expect(sent.sentAll)
        let answer = await ConnectionGuardTests.readsAnswer(steady)
        #expect(answer.bytes > 0, "read \(answer.bytes), errno \(answer.errno)")
    }

    @Test("a push socket stays open past the head deadline and answers a ping")
    func pushSocketKept() async throws {
        let server = try await TestServer.start(.sqlite) { $0.requestHeadTimeout = .seconds(1) }
        let alice = try await server.user("alice")
        let fd = try RawHTTP.connect(port: server.port)
        defer { close(fd) }
        try RawHTTP.send(fd, Self.lines(RawHTTP.upgradeRequest(path: PushAuthTests.path, authorization: "Bearer \(alice.token!)")))
        let upgrade = await ConnectionGuardTests.readsAnswer(fd)
        #expect(upgrade.bytes > 0)
        // A masked, empty ping frame, twice, 2.5 s apart: the first byte a socket reads after the
        // upgrade must start no head clock. Each is answered with a pong (opcode 0x8A).
        for round in 0..<2 {
            try await Task.sleep(for: .milliseconds(2500))
            try RawHTTP.send(fd, Data([0x89, 0x80, 1, 2, 3, 4]))
            #expect(await Self.readsPong(fd), "round \(round)")
        }
    }

    /// Reads server frames (unmasked) until a pong; `false` when the socket closes first.
    static func readsPong(_ fd: Int32) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                var time = timeval(tv_sec: 30, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
                func readExactly(_ count: Int) -> [UInt8]? {
                    var bytes = [UInt8](repeating: 0, count: count)
                    var offset = 0
                    while offset < count {
                        let read = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, count - offset) }
                        guard read > 0 else { return nil }
                        offset += read
                    }
                    return bytes
                }
                while let header = readExactly(2) {
                    var length = Int(header[1] & 0x7F)
                    if length == 126, let extended = readExactly(2) {
                        length = Int(extended[0]) << 8 | Int(extended[1])
                    } else if length == 127, let extended = readExactly(8) {
                        length = extended.reduce(0) { $0 << 8 | Int($1) }
                    }
                    guard length == 0 || readExactly(length) != nil else { break }
                    if header[0] & 0x0F == 0xA {
                        continuation.resume(returning: true)
                        return
                    }
                }
                continuation.resume(returning: false)
            }.start()
        }
    }
}
