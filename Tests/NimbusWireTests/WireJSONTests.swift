import Foundation
@testable import NimbusWire
import Testing

/// The fast JSON path writes the same bytes as `JSONEncoder` with `.sortedKeys` and reads the
/// same values as `JSONDecoder`, declining whatever it does not handle.
@Suite("Fast wire JSON")
struct WireJSONTests {
    static func sortedJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func fastJSON(_ value: some WireJSONWritable) throws -> String {
        String(decoding: try WireJSONWriter.encode(value), as: UTF8.self)
    }

    static let stamp = HLCStamp(time: 7, device: "phone")

    /// Values whose formatting is easy to get wrong: escapes, non-ASCII, numbers.
    static let trickyValues: [FieldValue] = [
        .string(""), .string("quote \" backslash \\ slash / tab \t newline \n return \r"),
        .string("controls \u{0} \u{1} \u{8} \u{C} \u{1F} \u{7F}"), .string("é 漢字 👩‍👩‍👧 \u{2028}"),
        .int64(0), .int64(-1), .int64(9), .int64(10), .int64(.max), .int64(.min),
        .double(0), .double(-0.0), .double(2), .double(2.5), .double(0.1), .double(1e-7), .double(1e21),
        .double(1e16), .double(123_456_789.125), .double(-3.25e-5), .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude),
        .bool(true), .bool(false), .date(Date(timeIntervalSince1970: 1_700_000_000.5)), .date(Date(timeIntervalSince1970: -1)),
        .bytes(Data()), .bytes(Data([0, 1, 2, 255])),
        .asset(AssetReference(checksum: String(repeating: "a", count: 64), size: 4)),
        .reference(RecordReference(recordName: "P/1", action: .deleteSelf)), .reference(RecordReference(recordName: "P")),
        .list([]), .list([.string("a"), .int64(1), .list([.bool(false)])]),
    ]

    @Test("each tricky value is written as JSONEncoder writes it and read back the same", arguments: trickyValues)
    func tricky(_ value: FieldValue) throws {
        let record = Record(
            recordName: "r", recordType: "T", fields: ["v": Field(value, stamp: Self.stamp), "cleared": Field(nil, stamp: Self.stamp)],
            changeTag: "1-2", created: RecordStamp(time: 1, device: "a"), modified: RecordStamp(time: 2, device: "b"))
        let fast = try Self.fastJSON(record)
        #expect(fast == (try Self.sortedJSON(record)))
        let request = ModifyRecordsRequest(saves: [record], savePolicy: .changedKeys)
        let body = try Self.fastJSON(request)
        #expect(body == (try Self.sortedJSON(request)))
        let read = Data(body.utf8).withUnsafeBytes { ModifyRecordsRequest.readJSON($0) }
        #expect(read == request)
        #expect(read == (try JSONDecoder().decode(ModifyRecordsRequest.self, from: Data(body.utf8))))
    }

    @Test("responses with records, deletions and errors are written as JSONEncoder writes them")
    func responses() throws {
        let record = try FixtureTests.decode(Record.self, "record")
        let modify = try FixtureTests.decode(ModifyRecordsResponse.self, "modify-response-partial")
        #expect(try Self.fastJSON(modify) == Self.sortedJSON(modify))
        var changes = try FixtureTests.decode(FetchZoneChangesResponse.self, "zone-changes-response")
        changes.records.append(record)
        #expect(try Self.fastJSON(changes) == Self.sortedJSON(changes))
        #expect(try Self.fastJSON(record) == Self.sortedJSON(record))
    }

    @Test("the golden modify requests read the same as with JSONDecoder", arguments: ["modify-request", "modify-request-minimal"])
    func goldenRequests(_ name: String) throws {
        let data = try FixtureTests.fixture(name)
        let fast = try #require(data.withUnsafeBytes { ModifyRecordsRequest.readJSON($0) })
        #expect(fast == (try JSONDecoder().decode(ModifyRecordsRequest.self, from: data)))
    }

    @Test("the golden record's fields read the same as with JSONDecoder")
    func goldenFields() throws {
        let record = try FixtureTests.decode(Record.self, "record")
        let data = try WireJSONWriter.encode(FieldsBox(fields: record.fields))
        #expect(data.withUnsafeBytes { FieldsJSON.read($0) } == record.fields)
    }

    /// Bodies the fast reader leaves to `JSONDecoder`: errors, and forms it does not handle.
    static let declined: [String] = [
        "", "[]", "null", "{", "{\"saves\": []} x", "{\"saves\": [], \"saves\": []}",
        "{\"saves\": [{\"recordName\": \"A\", \"recordType\": \"T\"}]}",
        "{\"saves\": [{\"recordName\": \"A\", \"recordType\": \"T\", \"fields\": null}]}",
        "{\"saves\": [{\"recordName\": \"A\", \"recordType\": \"T\", \"fields\": {\"f\": {\"value\": {\"type\": \"int64\", \"value\": 1.0}, \"stamp\": {\"time\": 1, \"device\": \"d\"}}}}]}",
        "{\"saves\": [{\"recordName\": \"A\", \"recordType\": \"T\", \"fields\": {\"f\": {\"value\": {\"type\": \"nope\", \"value\": 1}, \"stamp\": {\"time\": 1, \"device\": \"d\"}}}}]}",
        "{\"saves\": [{\"recordName\": \"A\", \"recordType\": \"T\", \"fields\": {\"f\": {\"stamp\": {\"time\": 01, \"device\": \"d\"}}}}]}",
        "{\"saves\": [{\"recordName\": \"A\", \"recordType\": \"T\", \"fields\": {\"f\": {\"stamp\": {\"time\": 1, \"device\": \"d\"}}, \"f\": {\"stamp\": {\"time\": 2, \"device\": \"d\"}}}}]}",
        "{\"savePolicy\": \"sometimes\"}", "{\"atomic\": 1}", "{\"saves\": [{\"recordName\": \"\\ud800\", \"recordType\": \"T\", \"fields\": {}}]}",
        "{\"saves\": [{\"recordName\": \"tab\there\", \"recordType\": \"T\", \"fields\": {}}]}",
    ]

    @Test("bodies outside the fast subset are declined, never read differently", arguments: declined)
    func declines(_ body: String) {
        #expect(Data(body.utf8).withUnsafeBytes { ModifyRecordsRequest.readJSON($0) } == nil)
    }

    @Test("a zone's changes and a modify batch's results read the same as with JSONDecoder")
    func responsesRead() throws {
        let record = try FixtureTests.decode(Record.self, "record")
        var changes = try FixtureTests.decode(FetchZoneChangesResponse.self, "zone-changes-response")
        changes.records.append(record)
        for value in Self.trickyValues {
            changes.records.append(Record(recordName: "r\(changes.records.count)", recordType: "T",
                                          fields: ["v": Field(value, stamp: Self.stamp), "cleared": Field(nil, stamp: Self.stamp)]))
        }
        for body in [try WireJSONWriter.encode(changes), try JSONEncoder().encode(changes), try FixtureTests.fixture("zone-changes-response")] {
            let fast = try #require(body.withUnsafeBytes { FetchZoneChangesResponse.readJSON($0) })
            #expect(fast == (try JSONDecoder().decode(FetchZoneChangesResponse.self, from: body)))
        }
        #expect(changes.deletions.isEmpty == false, "the fixture should exercise deletions")

        let results = ModifyRecordsResponse(results: [
            RecordResult(recordName: "A", status: .saved, record: record),
            RecordResult(recordName: "B", status: .deleted),
        ], changeToken: ChangeToken(rawValue: "ejEuMS4z"))
        for body in [try WireJSONWriter.encode(results), try JSONEncoder().encode(results)] {
            let fast = try #require(body.withUnsafeBytes { ModifyRecordsResponse.readJSON($0) })
            #expect(fast == results)
            #expect(fast == (try JSONDecoder().decode(ModifyRecordsResponse.self, from: body)))
        }
    }

    @Test("field stamps are written as JSONEncoder writes them and read back the same; odd forms decline")
    func stamps() throws {
        let stamps = ["title": Self.stamp, "é": HLCStamp(time: -1, device: ""), "CD_entityName": HLCStamp(time: .max, device: "d \" 漢")]
        let fast = try StampsJSON.encode(stamps)
        #expect(String(decoding: fast, as: UTF8.self) == (try Self.sortedJSON(stamps)))
        #expect(fast.withUnsafeBytes { StampsJSON.read($0) } == stamps)
        #expect(Data("{}".utf8).withUnsafeBytes { StampsJSON.read($0) } == [:])
        for odd in ["", "[]", "{\"a\": {\"time\": 1}}", "{\"a\": {\"time\": 1, \"device\": \"d\"}, \"a\": {\"time\": 2, \"device\": \"d\"}}"] {
            #expect(Data(odd.utf8).withUnsafeBytes { StampsJSON.read($0) } == nil)
        }
        let record = try FixtureTests.decode(Record.self, "record")
        let data = try WireJSONWriter.encode(record)
        #expect(data.withUnsafeBytes { Record.readJSON($0) } == record)
    }

    /// Answers the fast reader leaves to `JSONDecoder`: any error, and forms it does not handle.
    static let declinedAnswers: [String] = [
        "", "{}", "{\"records\": [], \"deletions\": [], \"changeToken\": \"t\"}",
        "{\"records\": [], \"deletions\": [], \"changeToken\": \"t\", \"moreComing\": 1}",
        "{\"records\": [], \"deletions\": [{\"recordName\": \"A\"}], \"changeToken\": \"t\", \"moreComing\": false}",
        "{\"records\": null, \"deletions\": [], \"changeToken\": \"t\", \"moreComing\": false}",
        "{\"results\": [], \"changeToken\": \"t\", \"error\": {\"code\": \"partialFailure\", \"message\": \"m\"}}",
        "{\"results\": [{\"recordName\": \"A\", \"status\": \"failed\", \"error\": {\"name\": \"A\", \"code\": \"unknownItem\", \"message\": \"m\"}}], \"changeToken\": \"t\"}",
        "{\"results\": [{\"recordName\": \"A\", \"status\": \"lost\"}], \"changeToken\": \"t\"}",
        "{\"results\": [{\"recordName\": \"A\", \"status\": \"saved\", \"status\": \"saved\"}], \"changeToken\": \"t\"}",
    ]

    @Test("answers outside the fast subset are declined, never read differently", arguments: declinedAnswers)
    func declinesAnswers(_ body: String) {
        let data = Data(body.utf8)
        #expect(data.withUnsafeBytes { FetchZoneChangesResponse.readJSON($0) } == nil)
        #expect(data.withUnsafeBytes { ModifyRecordsResponse.readJSON($0) } == nil)
    }

    @Test("a modify answer with null errors and unknown keys reads as JSONDecoder reads it")
    func acceptedAnswer() throws {
        let body = Data("""
            {"future": [1], "error": null, "changeToken": "t2",
             "results": [{"recordName": "A", "status": "deleted", "record": null, "error": null, "extra": {"x": 1}}]}
            """.utf8)
        let fast = try #require(body.withUnsafeBytes { ModifyRecordsResponse.readJSON($0) })
        #expect(fast == (try JSONDecoder().decode(ModifyRecordsResponse.self, from: body)))
        #expect(fast.results.first?.status == .deleted)
    }

    @Test("whitespace, unknown keys, nulls and escapes read as JSONDecoder reads them")
    func accepted() throws {
        let body = """
             { "atomic" : null , "future": {"a": [1, 2.5e3, true, null, "x"]}, "savePolicy": "allKeys",
               "saves": [ { "recordName": "caf\\u00e9 \\ud83d\\ude00 \\/ \\n", "recordType": "T", "changeTag": null,
                 "fields": { "f": { "stamp": { "device": "d", "time": -5 }, "value": { "value": 1, "type": "double" } },
                             "g": { "value": null, "stamp": { "time": 0, "device": "" } } } } ], "deletions": null }
            """
        let data = Data(body.utf8)
        let fast = try #require(data.withUnsafeBytes { ModifyRecordsRequest.readJSON($0) })
        #expect(fast == (try JSONDecoder().decode(ModifyRecordsRequest.self, from: data)))
        #expect(fast.saves.first?.recordName == "café 😀 / \n")
    }
}

/// A dictionary of fields written through the fast writer.
private struct FieldsBox: WireJSONWritable {
    var fields: [String: Field]
    func write(to writer: inout WireJSONWriter) throws { try writer.object(fields) }
}
