import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// Smaller probes of issue 27: names hidden in references, leftover upload files.
@Suite("Hostile input: references, leftovers", .stopsServers)
struct HostileInputTests {
    @Test("a reference naming a record longer than 255 bytes (or empty) is refused; 255 bytes is accepted")
    func referenceNames() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        for name in [String(repeating: "r", count: 256), "", String(repeating: "é", count: 200)] {
            let fields: [String: FieldValue] = ["parent": .list([.reference(RecordReference(recordName: name, action: .none))])]
            let reply = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("child", fields)]))
            #expect(reply.status == 400, "\(name.utf8.count) bytes: \(reply.text.prefix(200))")
            #expect(reply.error?.code == .invalidArguments)
        }
        let fine: [String: FieldValue] = ["parent": .reference(RecordReference(recordName: String(repeating: "r", count: 255), action: .none))]
        let saved = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("child", fine)]))
        #expect(saved.status == 200, "\(saved.text.prefix(200))")
    }

    @Test("upload files left in assets/tmp by a crashed server are removed at the next start")
    func leftoverUploads() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-leftover-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/assets/tmp", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: directory + "/assets/tmp/\(UUID().uuidString)", contents: Data(repeating: 7, count: 4096))
        _ = try await TestServer.start(.sqlite, dataDirectory: directory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/assets/tmp") == [])
    }
}

/// The public database counts against the writer's quota.
@Suite("Quotas in the public database", .stopsServers)
struct PublicQuotaTests {
    @Test("a user with a small quota cannot fill the public database past it")
    func publicQuota() async throws {
        let server = try await TestServer.start(.sqlite)
        var alice = try await server.user("alice", quotaBytes: 20_000)
        alice.database = "public"
        try await alice.createZone("board")
        var refused: Reply?
        for index in 0..<10 {
            let fields: [String: FieldValue] = ["body": .string(String(repeating: "x", count: 5_000))]
            let reply = try await alice.modify("board", ModifyRecordsRequest(saves: [Make.record("post\(index)", fields)]))
            if reply.status != 200 {
                refused = reply
                break
            }
        }
        let reply = try #require(refused, "alice wrote 50 KB to the public database on a 20 KB quota")
        #expect(reply.error?.code == .quotaExceeded || reply.text.contains("quotaExceeded"), "\(reply.text.prefix(300))")
    }
}

/// A key repeated in one JSON object is refused, not silently resolved.
@Suite("Duplicate JSON keys", .stopsServers)
struct DuplicateJSONKeyTests {
    @Test("the scanner finds repeated keys in nested objects, after unescaping, and ignores arrays and strings")
    func scanner() {
        func first(_ text: String) -> String? { Array(text.utf8).withUnsafeBytes { JSONDuplicateKeys.first(in: $0) } }
        #expect(first(#"{"a":1,"b":{"a":2},"a":3}"#) == "a")
        #expect(first(#"{"a":1,"\u0061":2}"#) == "a")
        #expect(first(#"{"x":[{"k":1},{"k":2}],"y":"\"x\":1, \"x\""}"#) == nil)
        #expect(first(#"{"outer":{"k":1,"k":2}}"#) == "k")
        #expect(first(#"[{"a":1},{"a":1}]"#) == nil)
    }

    @Test("a modify batch with a repeated key is refused with invalidArguments and saves nothing")
    func refused() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let body = #"{"saves":[{"recordName":"r","recordName":"s","recordType":"Post","fields":{}}],"savePolicy":"changedKeys","atomic":false,"deletions":[]}"#
        let reply = try await alice.send(.POST, alice.zonePath("z") + "/records/modify", body: Data(body.utf8))
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.error?.message.contains("recordName") == true)
        let found = try await alice.lookup("z", ["r", "s"])
        #expect(found.results.allSatisfy { $0.record == nil })
    }
}
