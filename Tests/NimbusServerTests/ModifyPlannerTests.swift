import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// The pure modify decisions, without I/O.
@Suite("Modify planner")
struct ModifyPlannerTests {
    static let zone = ZoneState(rowID: 3, incarnation: 3, zoneName: "z", seq: 10, purgedSeq: 0, databaseSeq: 5)

    static func stored(_ name: String, _ fields: [String: Field], tag: String = "3-a", deleted: HLCStamp? = nil) -> StoredRecord {
        StoredRecord(
            recordName: name, recordType: "Post", fields: fields, changeTag: tag, seq: 10,
            created: RecordStamp(time: 1, device: "a"), modified: RecordStamp(time: 1, device: "a"), deletion: deleted,
            size: ModifyPlanner.recordSize(name: name, type: "Post", fields: fields))
    }

    @Test("the same edits merge to the same record whatever order they arrive in")
    func orderIndependent() {
        let edits: [[String: Field]] = [
            ["t": Field(.string("a"), stamp: HLCStamp(time: 5, device: "a"))],
            ["t": Field(.string("b"), stamp: HLCStamp(time: 5, device: "b"))],
            ["t": Field(.string("c"), stamp: HLCStamp(time: 4, device: "z")), "u": Field(.int64(1), stamp: HLCStamp(time: 1, device: "a"))],
        ]
        let forward = edits.reduce([:], ModifyPlanner.merge)
        let backward = edits.reversed().reduce([:], ModifyPlanner.merge)
        #expect(forward == backward)
        #expect(forward["t"]?.value == .string("b"))
        #expect(forward["u"]?.value == .int64(1))
    }

    @Test("writes take consecutive sequence numbers and change tags from the zone")
    func sequences() {
        let request = ModifyRecordsRequest(
            saves: [Make.record("a", ["x": .int64(1)]), Make.record("b", ["x": .int64(2)])],
            deletions: [RecordDeletion(recordName: "old", stamp: HLCStamp(time: 9, device: "d"))], savePolicy: .changedKeys)
        let plan = ModifyPlanner.plan(
            request, existing: ["old": Self.stored("old", ["x": Field(.int64(0), stamp: HLCStamp(time: 1, device: "a"))])],
            zone: Self.zone, device: "phone", now: 100)
        #expect(plan.writes.map(\.seq) == [11, 12, 13])
        #expect(plan.newSeq == 13)
        #expect(plan.writes.map(\.changeTag) == ["3-b", "3-c", "3-d"])
        #expect(plan.writes[2].isTombstone && plan.writes[2].size == 0)
        #expect(plan.byteDelta == plan.writes[0].size + plan.writes[1].size - Self.stored("old", ["x": Field(.int64(0), stamp: HLCStamp(time: 1, device: "a"))]).size)
        #expect(plan.writes[0].modified == RecordStamp(time: 100, device: "phone"))
    }

    @Test("an atomic plan with a failure writes nothing and keeps the zone's sequence")
    func atomicPlan() {
        let request = ModifyRecordsRequest(
            saves: [Make.record("new", ["x": .int64(1)]), Make.record("gone", ["x": .int64(1)])], savePolicy: .allKeys, atomic: true)
        let plan = ModifyPlanner.plan(
            request, existing: ["gone": Self.stored("gone", [:], deleted: HLCStamp(time: 1, device: "a"))],
            zone: Self.zone, device: "phone", now: 100)
        #expect(plan.writes.isEmpty)
        #expect(plan.newSeq == Self.zone.seq)
        #expect(plan.results.map { $0.error?.code } == [.batchRequestFailed, .unknownItem])
    }
}
