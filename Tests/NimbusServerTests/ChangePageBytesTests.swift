import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Zone change pages are bounded by bytes", .stopsServers)
struct ChangePageBytesTests {
    @Test("large records come in pages under the byte bound, each change once, in order", arguments: Backend.available)
    func boundedByBytes(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend) { $0.maximumChangePageBytes = 250_000 }
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let blob = String(repeating: "b", count: 100_000)
        let names = (0..<10).map { String(format: "r%02d", $0) }
        try await alice.save("z", names.prefix(5).map { Make.record($0, ["blob": .string(blob)]) })
        try await alice.save("z", names.suffix(5).map { Make.record($0, ["blob": .string(blob)]) })
        var seen: [String] = []
        var token: ChangeToken?
        var pages = 0
        repeat {
            let page = try await alice.fetchChanges("z", since: token, limit: 500)
            #expect(page.records.count <= 3, "a page of \(page.records.count) records of 100 kB")
            #expect(!page.records.isEmpty || !page.moreComing)
            seen += page.records.map(\.recordName)
            token = page.changeToken
            pages += 1
            if !page.moreComing { break }
        } while pages < 20
        #expect(seen == names)
        #expect(pages >= 4)
    }

    @Test("a single record larger than the bound still comes, alone")
    func oversizeRecordAlone() {
        let big = StoredRecord(
            recordName: "big", recordType: "T", fields: [:], changeTag: "1-1", seq: 1,
            created: RecordStamp(time: 1, device: "d"), modified: RecordStamp(time: 1, device: "d"), deletion: nil, size: 5_000)
        var small = big
        small.recordName = "small"
        small.size = 10
        small.seq = 2
        let page = ZoneChangesPage.bounded([big, small], limit: 500, maximumBytes: 1_000)
        #expect(page.records.map(\.recordName) == ["big"])
        #expect(page.moreComing)
        let both = ZoneChangesPage.bounded([small, big], limit: 500, maximumBytes: 1_000)
        #expect(both.records.map(\.recordName) == ["small", "big"])
        #expect(!both.moreComing)
    }
}
