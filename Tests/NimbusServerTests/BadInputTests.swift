import Foundation
import NimbusWire
import Testing

@Suite("Bad input gets a typed error and changes nothing", .stopsServers)
struct BadInputTests {
    static let bodies: [(String, String)] = [
        ("malformed JSON", "{\"saves\": [ {"),
        ("not an object", "[1, 2, 3]"),
        ("a number for a record name", #"{"saves":[{"recordName":7,"recordType":"Post","fields":{}}]}"#),
        ("a missing record type", #"{"saves":[{"recordName":"a","fields":{}}]}"#),
        ("an unknown field type", #"{"saves":[{"recordName":"a","recordType":"Post","fields":{"x":{"value":{"type":"uuid","value":"1"},"stamp":{"time":1,"device":"d"}}}}]}"#),
        ("a string for an int64", #"{"saves":[{"recordName":"a","recordType":"Post","fields":{"x":{"value":{"type":"int64","value":"1"},"stamp":{"time":1,"device":"d"}}}}]}"#),
        ("bad base64 bytes", #"{"saves":[{"recordName":"a","recordType":"Post","fields":{"x":{"value":{"type":"bytes","value":"***"},"stamp":{"time":1,"device":"d"}}}}]}"#),
        ("an unknown save policy", #"{"saves":[],"savePolicy":"whatever"}"#),
        ("an empty batch", "{}"),
        ("an empty record name", #"{"saves":[{"recordName":"","recordType":"Post","fields":{}}]}"#),
        ("a record name with a slash", #"{"saves":[{"recordName":"a/b","recordType":"Post","fields":{}}]}"#),
        ("a record name of 300 bytes", #"{"saves":[{"recordName":"\#(String(repeating: "n", count: 300))","recordType":"Post","fields":{}}]}"#),
        ("a duplicate record", #"{"saves":[{"recordName":"a","recordType":"Post","fields":{}},{"recordName":"a","recordType":"Post","fields":{}}]}"#),
        ("a malformed asset checksum", #"{"saves":[{"recordName":"a","recordType":"Post","fields":{"p":{"value":{"type":"asset","value":{"checksum":"zz","size":1}},"stamp":{"time":1,"device":"d"}}}}]}"#),
    ]

    @Test("malformed or ill-typed modify bodies get invalidArguments", arguments: bodies)
    func badBodies(_ label: String, _ body: String) async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let reply = try await alice.send(.POST, alice.zonePath("z") + "/records/modify", body: Data(body.utf8))
        #expect(reply.status == 400, "\(label): \(reply.text)")
        #expect(reply.error?.code == .invalidArguments, "\(label)")
        #expect(reply.error?.message.isEmpty == false)
        #expect(try await alice.fetchChanges("z").records.isEmpty)
    }

    @Test("bad zone, container and database names get invalidArguments", arguments: [
        ("/v1/containers/app/databases/private/zones/\(String(repeating: "z", count: 256))", 400),
        ("/v1/containers/app/databases/private/zones/..", 400),
        ("/v1/containers/app/databases/private/zones/a%00b", 400),
        ("/v1/containers/app/databases/secret/zones/z", 400),
        ("/v1/containers/../databases/private/zones/z", 400),
    ])
    func badNames(_ path: String, _ status: Int) async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let reply = try await alice.send(.PUT, path)
        #expect(reply.status == status, "\(path): \(reply.text)")
        #expect(reply.error?.code == .invalidArguments || reply.error?.code == .unknownItem)
    }

    @Test("unknown zones get zoneNotFound on every zone route")
    func unknownZone() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let replies = [
            try await alice.modify("nowhere", ModifyRecordsRequest(saves: [Make.record("a", [:])])),
            try await alice.send(.POST, alice.zonePath("nowhere") + "/records/lookup", json: LookupRecordsRequest(recordNames: ["a"])),
            try await alice.changes("nowhere"),
            try await alice.send(.DELETE, alice.zonePath("nowhere")),
        ]
        for reply in replies {
            #expect(reply.status == 404)
            #expect(reply.error?.code == .zoneNotFound)
        }
    }

    @Test("forged change tokens get invalidArguments; unknown routes get a JSON error")
    func forgedChangeToken() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        for token in ["garbage!!", "ZDEuNQ", ""] {
            let reply = try await alice.changes("z", since: ChangeToken(rawValue: token))
            #expect(reply.error?.code == .invalidArguments, "\(token)")
        }
        let database = try await alice.send(.POST, alice.databasePath + "/changes", json: FetchDatabaseChangesRequest(since: ChangeToken(rawValue: "ejEuMS4w")))
        #expect(database.error?.code == .invalidArguments)
        let route = try await alice.send(.GET, "/v1/nothing/here")
        #expect(route.status == 404)
        #expect(route.error != nil)
    }
}
