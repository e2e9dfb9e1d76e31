import Foundation
import GRDB
import NIOCore
@testable import NimbusServer
import NimbusWire
import Testing

/// An error whose type name contains every substring the old classifier looked for.
private struct PostgresNIOConnectionPoolIOError: Error {}

@Suite("Errors declare their status; library errors are classified by type", .stopsServers)
struct ErrorClassifierTests {
    @Test("a full disk is 507 'disk is full', never a database outage", arguments: [
        IOError(errnoCode: ENOSPC, reason: "write") as any Error,
        POSIXError(.ENOSPC),
        NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC)),
        DatabaseError(resultCode: .SQLITE_FULL),
    ])
    func diskFull(_ error: any Error) throws {
        let classified = try #require(ErrorClassifier.classify(error))
        #expect(classified.status.code == 507)
        #expect(classified.wireError.message.contains("disk is full"))
        #expect(!classified.wireError.message.contains("database"))
    }

    @Test("storage outages are the retryable serviceUnavailable", arguments: [
        DatabaseError(resultCode: .SQLITE_BUSY) as any Error, ChannelError.ioOnClosedChannel,
    ])
    func outages(_ error: any Error) throws {
        let classified = try #require(ErrorClassifier.classify(error))
        #expect(classified.status.code == 503)
        #expect(classified.wireError.code == .serviceUnavailable)
    }

    @Test("a type's name decides nothing: an unknown error is an internal error")
    func namesDoNotClassify() {
        #expect(ErrorClassifier.classify(PostgresNIOConnectionPoolIOError()) == nil)
        #expect(ErrorClassifier.classify(DatabaseError(resultCode: .SQLITE_CONSTRAINT)) == nil)
    }

    @Test("a client that hangs up in the middle of its body is counted as 499, not 500")
    func clientDisconnect() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let request = [
            "POST \(alice.zonePath("z"))/records/modify HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer \(alice.token!)",
            "Content-Type: application/json", "Content-Length: 100000", "", #"{"saves":[{"recordName":"a","#,
        ].joined(separator: "\r\n")
        let fd = try RawHTTP.connect(port: server.port)
        try RawHTTP.send(fd, Data(request.utf8))
        try await Task.sleep(for: .milliseconds(100))
        close(fd)
        var metrics = ""
        for _ in 0..<100 {
            metrics = try await alice.send(.GET, "/metrics").text
            if metrics.contains("status=\"499\"") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let lines = metrics.split(separator: "\n").filter { $0.hasPrefix("nimbus_http_requests_total") && $0.contains("records/modify") }
        #expect(lines.contains { $0.contains("status=\"499\"") }, "\(lines)")
        #expect(!lines.contains { $0.contains("status=\"500\"") }, "\(lines)")
        #expect(try await alice.fetchChanges("z").records.isEmpty)
    }
}
