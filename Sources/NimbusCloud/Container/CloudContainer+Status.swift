import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// Where an object stands with the server.
public enum ObjectSyncState: String, Sendable, Codable {
    /// Every edit of the object is on the server.
    case synced
    /// Edits (or the object itself) wait to be sent.
    case pendingUpload
    /// It was edited here and elsewhere; the per-field stamps decided, and it is in step now.
    case conflictedAndResolved
    /// The object is in a store that doesn't mirror.
    case notMirrored
}

/// A mirrored store's sync status: what waits to go out, where the import stands, how the
/// last sync ended.
public struct StoreSyncStatus: Sendable, Codable {
    public var storeIdentifier: String
    public var storePath: String?
    public var zoneName: String
    public var deviceID: String
    /// Objects with unsent edits, unsent deletions and memberships.
    public var pendingUploads: Int
    /// Records waiting for a record they refer to.
    public var parkedRecords: Int
    /// The zone's change token the replica is at (`nil` before the first import).
    public var zoneToken: String?
    /// The history transaction the exporter has read up to.
    public var historyCursor: Int64?
    /// When the last sync succeeded.
    public var lastSync: Date?
    /// How the last sync failed, if it did.
    public var lastError: String?
    /// Records this device could not apply, set aside with their reasons (see
    /// ``CloudContainer/quarantinedRecords()``).
    public var quarantined: [QuarantinedRecord] = []

    init(storeIdentifier: String, storePath: String?, zoneName: String, deviceID: String, pendingUploads: Int, parkedRecords: Int) {
        self.storeIdentifier = storeIdentifier
        self.storePath = storePath
        self.zoneName = zoneName
        self.deviceID = deviceID
        self.pendingUploads = pendingUploads
        self.parkedRecords = parkedRecords
    }
}

extension CloudContainer {
    /// The status of every mirrored store.
    public func syncStatus() throws -> [StoreSyncStatus] {
        try engines.map { engine in try Self.status(of: engine.mirror) }
    }

    /// One store's status, read in one transaction (after capturing its history).
    private static func status(of mirror: StoreMirror) throws -> StoreSyncStatus {
        try mirror.store.writeTransaction { db -> StoreSyncStatus in
            try mirror.capture.capture(db)
            let pending = try SyncMetadata.pendingCount(db)
            let parked = try ParkedRecords.count(db)
            let token = try SyncMetadata.state(.zoneToken, db)
            let cursor = try SyncMetadata.state(.historyCursor, db)
            let lastSync = try SyncMetadata.doubleState(.lastSync, db)
            let lastError = try SyncMetadata.state(.lastError, db)
            var status = StoreSyncStatus(storeIdentifier: mirror.store.identifier, storePath: mirror.store.url?.path,
                                         zoneName: mirror.zoneID.zoneName, deviceID: mirror.deviceID,
                                         pendingUploads: pending, parkedRecords: parked)
            status.zoneToken = String.fromDatabaseValue(token)
            status.historyCursor = Int64.fromDatabaseValue(cursor)
            status.lastSync = lastSync.map { Date(timeIntervalSince1970: $0) }
            status.lastError = String.fromDatabaseValue(lastError)
            status.quarantined = try Quarantine.list(db)
            return status
        }
    }

    /// The records of every mirrored store that this device could not apply, with their
    /// reasons: a value its model refuses, an entity or relationship it doesn't know (yet), a
    /// uniqueness conflict, a deletion a rule refused. They are tried again after a model
    /// upgrade and after imports that change something; the rest of sync goes on meanwhile.
    public func quarantinedRecords() throws -> [QuarantinedRecord] {
        try engines.flatMap { engine in try engine.mirror.store.readTransaction { db in try Quarantine.list(db) } }
    }

    /// Where an object stands with the server.
    public func syncState(for objectID: ManagedObjectID) throws -> ObjectSyncState {
        guard let mirror = mirror(for: objectID.storeIdentifier) else { return .notMirrored }
        if objectID.isTemporaryID { return .pendingUpload }
        return try mirror.store.writeTransaction { db in
            try mirror.capture.capture(db)
            let key = ObjectKey(objectID)
            if try SyncMetadata.pendingFields(entity: key.entity, primaryKey: key.primaryKey, db) != nil { return .pendingUpload }
            guard let row = try SyncMetadata.record(entity: key.entity, primaryKey: key.primaryKey, db), row.changeTag != nil else {
                return .pendingUpload
            }
            let conflicted = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ANIMBUSCLOUDCONFLICT WHERE ZRECORDNAME = ?)",
                                               arguments: [row.recordName]) ?? false
            return conflicted ? .conflictedAndResolved : .synced
        }
    }

    /// The record name of a mirrored object (`CKRecord.ID`'s name in Core Data's API), once
    /// it has one.
    public func recordName(for objectID: ManagedObjectID) throws -> String? {
        guard let mirror = mirror(for: objectID.storeIdentifier), !objectID.isTemporaryID else { return nil }
        return try mirror.store.readTransaction { db in
            try SyncMetadata.record(entity: objectID.entity.entityNumber, primaryKey: objectID.primaryKey, db)?.recordName
        }
    }

    /// The record of a mirrored object as the server last confirmed it (every field with its
    /// stamp), or `nil` before its first upload.
    public func record(for objectID: ManagedObjectID) throws -> Record? {
        guard let mirror = mirror(for: objectID.storeIdentifier), !objectID.isTemporaryID else { return nil }
        return try mirror.store.readTransaction { db in
            try SyncMetadata.record(entity: objectID.entity.entityNumber, primaryKey: objectID.primaryKey, db)?.ancestor
        }
    }

    /// The object a record name stands for in this container's mirrored stores.
    public func objectID(forRecordName name: String) throws -> ManagedObjectID? {
        for engine in engines {
            let mirror = engine.mirror
            if let row = try mirror.store.readTransaction({ db in try SyncMetadata.record(named: name, db) }),
               let entity = mirror.store.entity(number: row.entity) {
                return mirror.store.objectID(for: entity, primaryKey: row.primaryKey)
            }
        }
        return nil
    }
}
