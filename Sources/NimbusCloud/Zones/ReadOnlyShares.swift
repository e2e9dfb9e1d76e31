import Foundation
import GRDB
import Nimbus
import NimbusWire

/// Refuses, before anything is sent, local edits of objects in a share this user may only
/// read: the save fails with ``NimbusError/Code-swift.struct/readOnlyStore`` and writes
/// nothing (``CloudContainer/canUpdateRecord(forManagedObjectWith:)`` is false for them).
/// Imports (the mirroring's own author) are not checked.
enum ReadOnlyShares {
    static func guardWrites(of store: PersistentStore, importAuthor: String) {
        store.addWriteCheck { write, db in
            guard write.author != importAuthor, try !Placement.isEmpty(db) else { return }
            for id in write.updated + write.deleted {
                guard let key = try Placement.zone(entity: id.entity.entityNumber, primaryKey: id.primaryKey, db),
                      let zone = try Placement.zone(key: key, db), zone.permission == .readOnly else { continue }
                throw NimbusError(.readOnlyStore, "\(id.entity.name) \(id) is in a read-only share of \(zone.zoneID.ownerName ?? "its owner"): "
                    + "this user may read it but not change or delete it")
            }
        }
    }
}
