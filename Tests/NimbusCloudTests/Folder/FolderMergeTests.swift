import Foundation
@testable import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

/// The fold of log entries is what makes replicas agree whatever order files arrive in: it
/// must not depend on order, repeat, or whether states were joined from baselines.
@Suite("Folder merge rules")
struct FolderMergeTests {
    enum Entry {
        case save(Record, RecordStamp)
        case delete(RecordDeletion)
    }

    /// Entries about two records: saves of two fields with clashing stamps, and deletions.
    static func entries(seed: UInt64) -> [Entry] {
        var random = SeededGenerator(seed: seed)
        var entries: [Entry] = []
        for index in 0..<12 {
            let name = "r\(Int.random(in: 0..<2, using: &random))"
            let device = "d\(Int.random(in: 0..<3, using: &random))"
            let time = Int64.random(in: 0..<5, using: &random)
            if Int.random(in: 0..<6, using: &random) == 0 {
                entries.append(.delete(RecordDeletion(recordName: name, stamp: HLCStamp(time: time, device: device))))
            } else {
                let key = ["title", "body"].randomElement(using: &random)!
                let record = Record(recordName: name, recordType: "CD_Post",
                                    fields: [key: Field(.string("v\(index)"), stamp: HLCStamp(time: time, device: device))])
                entries.append(.save(record, RecordStamp(time: time * 10, device: device)))
            }
        }
        return entries
    }

    static func fold(_ entries: [Entry], into start: [String: IndexedRecord] = [:]) -> [String: IndexedRecord] {
        var state = start
        for entry in entries {
            switch entry {
            case let .save(record, at):
                if let outcome = FolderMerge.save(record, at: at, zone: "z", onto: state[record.recordName]) { state[record.recordName] = outcome.record }
            case let .delete(deletion):
                if let outcome = FolderMerge.delete(deletion, zone: "z", onto: state[deletion.recordName]) { state[deletion.recordName] = outcome.record }
            }
        }
        return state.mapValues { var record = $0; record.seq = 0; return record }
    }

    @Test("folding log entries in any order, with repeats, gives the same records; a deletion stays", arguments: 1...30)
    func orderIndependent(seed: UInt64) {
        let entries = Self.entries(seed: seed)
        let expected = Self.fold(entries)
        var random = SeededGenerator(seed: seed &+ 1000)
        for _ in 0..<20 {
            let shuffled = entries.shuffled(using: &random)
            #expect(Self.fold(shuffled + shuffled.prefix(3)) == expected)
        }
        for entry in entries {
            if case let .delete(deletion) = entry { #expect(expected[deletion.recordName]?.isTombstone == true) }
        }
    }

    @Test("joining two devices' states (baselines) equals folding all their entries", arguments: 1...30)
    func joinEqualsFold(seed: UInt64) {
        let entries = Self.entries(seed: seed)
        let half = entries.count / 2
        let (first, second) = (Self.fold(Array(entries[..<half])), Self.fold(Array(entries[half...])))
        var joined = first
        for (name, record) in second {
            if let outcome = FolderMerge.join(record, onto: joined[name]) { joined[name] = outcome.record }
        }
        #expect(joined.mapValues { var record = $0; record.seq = 0; return record } == Self.fold(entries))
    }
}

extension FolderMergeTests {
    @Test("an erase removes what was stamped before it whichever comes first, the erase or the older edits")
    func eraseInEitherOrder() throws {
        let stamp = { (time: Int64) in HLCStamp(time: time, device: "d") }
        let before = FolderLog(peer: "p1", seq: 1, zone: "z", time: 1, saves: [
            Record(recordName: "old", recordType: "CD_Post", fields: ["title": Field(.string("old"), stamp: stamp(1))]),
            Record(recordName: "both", recordType: "CD_Post", fields: ["title": Field(.string("early"), stamp: stamp(2))])],
                               deletions: [RecordDeletion(recordName: "gone", stamp: stamp(3))])
        let after = FolderLog(peer: "p2", seq: 1, zone: "z", time: 9, saves: [
            Record(recordName: "both", recordType: "CD_Post", fields: ["body": Field(.string("late"), stamp: stamp(9))])], deletions: [])
        let erase = FolderLog(peer: "p3", seq: 1, zone: "z", time: 5, saves: [], deletions: [], erase: stamp(5))
        var results: [[IndexedRecord]] = []
        for order in [[before, after, erase], [erase, after, before], [after, erase, before]] {
            let folder = try TemporaryDirectory()
            let index = try FolderIndex(url: folder.url.appendingPathComponent("index.sqlite"))
            let records = try index.queue.write { db in
                for log in order { try index.fold(log, checksum: "\(log.peer)", db) }
                // Values and tombstones (created/modified may differ after an erase: decision 0116).
                return try index.allRecords(db).map { var record = $0; record.seq = 0; record.created = nil; record.modified = nil; return record }
            }
            results.append(records)
        }
        #expect(results[0].map(\.name) == ["both"])
        #expect(results[0].first?.fields.keys.sorted() == ["body"])
        #expect(results[1] == results[0])
        #expect(results[2] == results[0])
    }
}
