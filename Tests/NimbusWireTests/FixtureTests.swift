import Foundation
import NimbusWire
import Testing

/// Golden JSON of protocol version 1: these files must keep decoding as the types evolve.
@Suite("Golden fixtures (v1)")
struct FixtureTests {
    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures/v1"))
        return try Data(contentsOf: url)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try JSONDecoder().decode(T.self, from: fixture(name))
    }

    @Test("a record with every field type decodes to the expected values")
    func record() throws {
        let record = try Self.decode(Record.self, "record")
        #expect(record.recordName == "6F1C2A3B-0000-4000-8000-000000000001")
        #expect(record.changeTag == "1-2a")
        #expect(record.modified == RecordStamp(time: 1_700_000_005_000, device: "laptop"))
        #expect(record.fields["CD_title"] == Field(.string("Hello"), stamp: HLCStamp(time: 111_411_200_000_000, device: "phone")))
        #expect(record.fields["CD_count"]?.value == .int64(9_007_199_254_740_993))
        #expect(record.fields["CD_score"]?.value == .double(2.5))
        #expect(record.fields["CD_done"]?.value == .bool(true))
        #expect(record.fields["CD_when"]?.value == .date(Date(timeIntervalSince1970: 1_700_000_000.5)))
        #expect(record.fields["CD_blob"]?.value == .bytes(Data([0, 1, 2])))
        #expect(record.fields["CD_parent"]?.value == .reference(RecordReference(recordName: "P1", action: .deleteSelf)))
        #expect(record.fields["CD_tags"]?.value == .list([.string("a"), .int64(1)]))
        #expect(record.fields["CD_cleared"] == Field(nil, stamp: HLCStamp(time: 10, device: "laptop")))
        #expect(record.assetReferences.map(\.size) == [4])
    }

    @Test("every fixture round-trips through encode and decode unchanged")
    func roundTrip() throws {
        func check<T: Codable & Equatable>(_ type: T.Type, _ name: String) throws {
            let value = try Self.decode(T.self, name)
            #expect(try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value)) == value, "\(name)")
        }
        try check(Record.self, "record")
        try check(ModifyRecordsRequest.self, "modify-request")
        try check(ModifyRecordsResponse.self, "modify-response-partial")
        try check(FetchZoneChangesResponse.self, "zone-changes-response")
        try check(FetchDatabaseChangesResponse.self, "database-changes-response")
        try check(ErrorResponse.self, "error-rate-limited")
        try check(PushMessage.self, "push-zone-changed")
        try check(LookupRecordsResponse.self, "lookup-response")
        try check(ListZonesResponse.self, "list-zones-response")
        try check(ZoneShare.self, "zone-share")
        try check(SaveShareRequest.self, "save-share-request")
        try check(ListZonesResponse.self, "list-shared-zones-response")
        try check(PushMessage.self, "push-shared-zone-deleted")
    }

    @Test("shares, share requests and the shared database's zones decode with their values")
    func sharing() throws {
        let share = try Self.decode(ZoneShare.self, "zone-share")
        #expect(share.zoneID == ZoneID(zoneName: "trip", ownerName: "alice"))
        #expect(share.publicPermission == SharePermission.none)
        #expect(share.participants == [
            ShareParticipant(userName: "bob", permission: .readOnly), ShareParticipant(userName: "carol", permission: .readWrite),
        ])
        let request = try Self.decode(SaveShareRequest.self, "save-share-request")
        #expect(request.participants.map(\.userName) == ["bob", "carol"])
        #expect(request.participants.map(\.permission) == [.readOnly, .readWrite])
        let minimal = try Self.decode(SaveShareRequest.self, "save-share-request-minimal")
        #expect(minimal.participants.isEmpty && minimal.publicPermission == SharePermission.none)
        let zones = try Self.decode(ListZonesResponse.self, "list-shared-zones-response")
        #expect(zones.zones.map(\.zoneID) == [ZoneID(zoneName: "trip", ownerName: "alice")])
        let push = try Self.decode(PushMessage.self, "push-shared-zone-deleted")
        #expect(push.kind == .zoneDeleted && push.database == .shared && push.zoneID?.ownerName == "alice" && push.zoneChangeToken == nil)
    }

    @Test("requests, responses, errors and push messages decode with their values")
    func messages() throws {
        let request = try Self.decode(ModifyRecordsRequest.self, "modify-request")
        #expect(request.savePolicy == .ifServerRecordUnchanged && request.atomic)
        #expect(request.deletions == [RecordDeletion(recordName: "B", stamp: HLCStamp(time: 2, device: "d"))])
        let minimal = try Self.decode(ModifyRecordsRequest.self, "modify-request-minimal")
        #expect(minimal.savePolicy == .ifServerRecordUnchanged && !minimal.atomic && minimal.deletions.isEmpty)
        let partial = try Self.decode(ModifyRecordsResponse.self, "modify-response-partial")
        #expect(partial.error?.code == .partialFailure)
        #expect(partial.results[1].error?.serverRecord?.changeTag == "1-2")
        let limited = try Self.decode(ErrorResponse.self, "error-rate-limited").error
        #expect(limited.code == .requestRateLimited && limited.retryAfter == 0.5 && limited.code.isRetryable)
        let push = try Self.decode(PushMessage.self, "push-zone-changed")
        #expect(push.kind == .zoneChanged && push.database == .private && push.zoneID?.zoneName == "notes")
        let database = try Self.decode(FetchDatabaseChangesResponse.self, "database-changes-response")
        #expect(database.deletedZones == [ZoneID(zoneName: "b", ownerName: "alice")])
    }

    @Test("an error code this build does not know still decodes and keeps its text")
    func futureCode() throws {
        let error = try Self.decode(ErrorResponse.self, "error-future-code").error
        #expect(error.code.rawValue == "zoneBusy")
        #expect(!WireError.Code.known.contains(error.code))
        #expect(error.code.httpStatus == 500)
    }
}
