import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Unicode-equivalent names address the same zone and record (NFC)", .stopsServers)
struct NameNormalizationTests {
    static let composedCafe = "caf\u{E9}"          // é as one scalar
    static let decomposedCafe = "cafe\u{301}"       // e + combining acute
    static let composedZone = "cr\u{E8}me"
    static let decomposedZone = "cre\u{300}me"

    @Test("a record saved under a decomposed name is found by its composed name, in either form of the zone", arguments: Backend.available)
    func sameRecord(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone(Self.composedZone)
        #expect(try await alice.createZone(Self.decomposedZone).zoneID.zoneName.unicodeScalars.elementsEqual(Self.composedZone.unicodeScalars))
        #expect(try await alice.zoneIDs().count == 1)
        try await alice.save(Self.decomposedZone, [Make.record(Self.decomposedCafe, ["t": .string("first")])])
        let found = try await alice.lookup(Self.composedZone, [Self.composedCafe]).results[0]
        #expect(found.record?.fields["t"]?.value == .string("first"), "\(found)")
        try await alice.save(Self.composedZone, [Make.record(Self.composedCafe, ["t": .string("second")], time: 2)])
        let changes = try await alice.fetchChanges(Self.decomposedZone)
        #expect(changes.records.count == 1)
        #expect(changes.records.first?.recordName.unicodeScalars.elementsEqual(Self.composedCafe.unicodeScalars) == true)
        #expect(changes.records.first?.fields["t"]?.value == .string("second"))
        _ = try await alice.modify(Self.composedZone, ModifyRecordsRequest(deletions: [RecordDeletion(recordName: Self.decomposedCafe, stamp: Make.stamp(3))]))
        #expect(try await alice.lookup(Self.composedZone, [Self.composedCafe]).results[0].error?.code == .unknownItem)
    }

    @Test("the two forms of one name in one batch are a duplicate")
    func duplicateInBatch() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let reply = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record(Self.composedCafe, [:]), Make.record(Self.decomposedCafe, [:])]))
        #expect(reply.error?.code == .invalidArguments)
        #expect(try await alice.fetchChanges("z").records.isEmpty)
    }
}
