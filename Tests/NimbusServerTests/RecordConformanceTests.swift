import Foundation
import NimbusWire
import Testing

/// The conformance suite, part 2: saves, policies, merges, deletions, lookups.
@Suite("Records (conformance)", .stopsServers)
struct RecordConformanceTests {
    @Test("a saved record gets a change tag and stamps, and lookup finds it", arguments: Backend.available)
    func saveAndLookup(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice", device: "phone")
        try await alice.createZone("z")
        let fields: [String: FieldValue] = [
            "title": .string("Hello"), "count": .int64(42), "score": .double(2.5), "done": .bool(true),
            "when": .date(Date(timeIntervalSince1970: 1_700_000_000.5)), "blob": .bytes(Data([0, 1, 2])),
            "parent": .reference(RecordReference(recordName: "p", action: .deleteSelf)),
            "tags": .list([.string("a"), .int64(1)]),
        ]
        let response = try await alice.save("z", [Make.record("r1", fields)], policy: .ifServerRecordUnchanged)
        let saved = try #require(response.results.first?.record)
        #expect(saved.changeTag != nil)
        #expect(saved.modified?.device == "phone")
        #expect(saved.created == saved.modified)
        let found = try await alice.lookup("z", ["r1", "missing"])
        #expect(found.results[0].record == saved)
        #expect(found.results[0].record?.fields.mapValues(\.value) == fields.mapValues { $0 })
        #expect(found.results[1].error?.code == .unknownItem)
    }

    @Test("ifServerRecordUnchanged saves over the matching tag and refuses a stale one with the server record", arguments: Backend.available)
    func compareAndSwap(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let v1 = try #require(try await alice.save("z", [Make.record("r", ["t": .string("v1")])], policy: .ifServerRecordUnchanged).results[0].record)
        let v2 = try #require(try await alice.save(
            "z", [Make.record("r", ["t": .string("v2")], time: 2, changeTag: v1.changeTag)], policy: .ifServerRecordUnchanged).results[0].record)
        #expect(v2.changeTag != v1.changeTag)
        let stale = try await alice.modify("z", ModifyRecordsRequest(
            saves: [Make.record("r", ["t": .string("v3")], time: 3, changeTag: v1.changeTag)], savePolicy: .ifServerRecordUnchanged))
        #expect(stale.status == 207)
        let body = try stale.decode(ModifyRecordsResponse.self)
        #expect(body.error?.code == .partialFailure)
        let item = try #require(body.results.first?.error)
        #expect(item.code == .serverRecordChanged)
        #expect(item.serverRecord == v2)
        let noTag = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("r", ["t": .string("x")])], savePolicy: .ifServerRecordUnchanged))
        #expect(try noTag.decode(ModifyRecordsResponse.self).results[0].error?.code == .serverRecordChanged)
        let phantom = try await alice.modify("z", ModifyRecordsRequest(
            saves: [Make.record("ghost", ["t": .string("x")], changeTag: "1-9")], savePolicy: .ifServerRecordUnchanged))
        #expect(try phantom.decode(ModifyRecordsResponse.self).results[0].error?.code == .unknownItem)
    }

    @Test("changedKeys merges field by field: later stamp wins, ties go to the greater device id", arguments: Backend.available)
    func changedKeysMerge(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await alice.save("z", [Record(recordName: "r", recordType: "Post", fields: [
            "title": Field(.string("base"), stamp: Make.stamp(1, "a")), "body": Field(.string("base"), stamp: Make.stamp(1, "a")),
        ])])
        // Device b edits the body later; device a's title edit arrives after with an older stamp for body.
        try await alice.save("z", [Record(recordName: "r", recordType: "Post", fields: ["body": Field(.string("from b"), stamp: Make.stamp(20, "b"))])])
        try await alice.save("z", [Record(recordName: "r", recordType: "Post", fields: [
            "title": Field(.string("from a"), stamp: Make.stamp(10, "a")), "body": Field(.string("stale a"), stamp: Make.stamp(5, "a")),
        ])])
        // A tie on time: the greater device id wins whatever the order.
        try await alice.save("z", [Record(recordName: "r", recordType: "Post", fields: ["tie": Field(.string("z wins"), stamp: Make.stamp(30, "z"))])])
        try await alice.save("z", [Record(recordName: "r", recordType: "Post", fields: ["tie": Field(.string("m loses"), stamp: Make.stamp(30, "m"))])])
        // Clearing a field is an edit like any other.
        try await alice.save("z", [Record(recordName: "r", recordType: "Post", fields: ["cleared": Field(.string("soon gone"), stamp: Make.stamp(1, "a"))])])
        try await alice.save("z", [Record(recordName: "r", recordType: "Post", fields: ["cleared": Field(nil, stamp: Make.stamp(2, "a"))])])
        let record = try #require(try await alice.lookup("z", ["r"]).results[0].record)
        #expect(record.fields["title"]?.value == .string("from a"))
        #expect(record.fields["body"]?.value == .string("from b"))
        #expect(record.fields["tie"]?.value == .string("z wins"))
        #expect(record.fields.keys.contains("cleared"))
        #expect(record.fields["cleared"]?.value == nil)
    }

    @Test("a changedKeys save that changes nothing keeps the change tag and adds no change", arguments: Backend.available)
    func idempotentMerge(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let record = Make.record("r", ["t": .string("same")], time: 5)
        let first = try await alice.save("z", [record])
        let second = try await alice.save("z", [record])
        #expect(first.results[0].record?.changeTag == second.results[0].record?.changeTag)
        #expect(first.changeToken == second.changeToken)
    }

    @Test("allKeys replaces every field whatever the server holds", arguments: Backend.available)
    func allKeys(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await alice.save("z", [Make.record("r", ["a": .string("1"), "b": .string("2")], time: 100)])
        try await alice.save("z", [Make.record("r", ["a": .string("new")], time: 1)], policy: .allKeys)
        let record = try #require(try await alice.lookup("z", ["r"]).results[0].record)
        #expect(record.fields.mapValues(\.value) == ["a": .string("new")])
    }

    @Test("a deletion leaves a tombstone that wins over later saves", arguments: Backend.available)
    func deletionWins(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let start = try await alice.fetchChanges("z")
        try await alice.save("z", [Make.record("r", ["t": .string("x")])])
        let deletion = try await alice.modify("z", ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "r", stamp: Make.stamp(5))]))
        #expect(deletion.status == 200)
        #expect(try deletion.decode(ModifyRecordsResponse.self).results[0].status == .deleted)
        for policy in [SavePolicy.changedKeys, .allKeys, .ifServerRecordUnchanged] {
            let resave = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("r", ["t": .string("later")], time: 99)], savePolicy: policy))
            #expect(try resave.decode(ModifyRecordsResponse.self).results[0].error?.code == .unknownItem)
        }
        #expect(try await alice.lookup("z", ["r"]).results[0].error?.code == .unknownItem)
        let changes = try await alice.fetchChanges("z", since: start.changeToken)
        #expect(changes.records.isEmpty)
        #expect(changes.deletions == [DeletedRecord(recordName: "r", stamp: Make.stamp(5))])
        let again = try await alice.modify("z", ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "r", stamp: Make.stamp(6))]))
        #expect(again.status == 200)
        let unknown = try await alice.modify("z", ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "never", stamp: Make.stamp(6))]))
        #expect(try unknown.decode(ModifyRecordsResponse.self).results[0].error?.code == .unknownItem)
    }

    @Test("an atomic batch with one failure applies nothing; a plain batch applies the rest", arguments: Backend.available)
    func atomicity(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await alice.save("z", [Make.record("existing", ["t": .string("x")])], policy: .ifServerRecordUnchanged)
        let batch = [Make.record("new1", ["t": .string("1")]), Make.record("existing", ["t": .string("stale")]), Make.record("new2", ["t": .string("2")])]
        let atomic = try await alice.modify("z", ModifyRecordsRequest(saves: batch, savePolicy: .ifServerRecordUnchanged, atomic: true))
        #expect(atomic.status == 207)
        let body = try atomic.decode(ModifyRecordsResponse.self)
        #expect(body.results.map { $0.error?.code } == [.batchRequestFailed, .serverRecordChanged, .batchRequestFailed])
        #expect(try await alice.lookup("z", ["new1", "new2"]).results.allSatisfy { $0.record == nil })
        let plain = try await alice.modify("z", ModifyRecordsRequest(saves: batch, savePolicy: .ifServerRecordUnchanged, atomic: false))
        #expect(plain.status == 207)
        let plainBody = try plain.decode(ModifyRecordsResponse.self)
        #expect(plainBody.results.map(\.status) == [.saved, .failed, .saved])
        #expect(plainBody.error?.itemErrors?.map(\.name) == ["existing"])
        #expect(try await alice.lookup("z", ["new1", "new2"]).results.allSatisfy { $0.record != nil })
    }
}
