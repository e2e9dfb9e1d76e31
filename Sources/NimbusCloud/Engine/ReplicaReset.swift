import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// Empties a mirrored store's replica: every mirrored object is removed through the import
/// context (so nothing is exported) and the sync metadata is forgotten, keeping the device's
/// identity and clock. Rebuilding from the cloud and erasing start with it.
struct ReplicaReset {
    let mirror: StoreMirror

    /// Removes every mirrored object and the sync metadata; returns how many objects went.
    @discardableResult
    func wipe() async throws -> Int {
        let mirror = self.mirror
        let context = mirror.importContext
        return try await context.perform {
            defer { context.reset() }
            var count = 0
            for entity in mirror.mirrored.entities where entity.superentity == nil {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.affectedStores = [mirror.store]   // (only this store's replica: a shared store holds the same entities)
                let objects = try context.fetch(request)
                for object in objects { context.delete(object) }
                count += objects.count
            }
            try context.save(in: mirror.store) { db, _ in
                try db.execute(sql: """
                    DELETE FROM ANIMBUSCLOUDRECORD; DELETE FROM ANIMBUSCLOUDPENDING; DELETE FROM ANIMBUSCLOUDDELETION;
                    DELETE FROM ANIMBUSCLOUDLINK; DELETE FROM ANIMBUSCLOUDTOMBSTONE; DELETE FROM ANIMBUSCLOUDPARKED;
                    DELETE FROM ANIMBUSCLOUDCONFLICT; DELETE FROM ANIMBUSCLOUDFIRSTSAVE; DELETE FROM ANIMBUSCLOUDMARKER;
                    DELETE FROM ANIMBUSCLOUDPLACEMENT; UPDATE ANIMBUSCLOUDZONE SET ZTOKEN = NULL, ZREFETCHING = 0;
                    """)
                try SyncMetadata.setState(.zoneToken, nil, db)
                try SyncMetadata.setState(.refetching, nil, db)
                // Edits not captured yet go with the replica.
                let last = try mirror.store.lastHistoryTransaction(db)
                try SyncMetadata.setState(.historyCursor, last, db)
                try mirror.store.setHistoryConsumer(ChangeCapture.consumerName, at: last, db)
            }
            return count
        }
    }
}

/// The zone's epoch: a record written when a zone's content is erased. A device that held
/// confirmed data and finds another epoch knows its replica was erased elsewhere.
enum ZoneEpoch {
    static let recordType = "NimbusZoneEpoch"
    static let recordName = "NimbusZoneEpoch"

    static func record(_ epoch: String, device: String, at date: Date = Date()) -> Record {
        var clock = HybridLogicalClock()
        var record = Record(recordName: recordName, recordType: recordType)
        record.fields["epoch"] = Field(.string(epoch), stamp: HLCStamp(time: clock.tick(at: date), device: device))
        return record
    }

    static func epoch(in records: [Record]) -> String? {
        guard let record = records.first(where: { $0.recordType == recordType }),
              case let .string(epoch)? = record.fields["epoch"]?.value else { return nil }
        return epoch
    }
}
