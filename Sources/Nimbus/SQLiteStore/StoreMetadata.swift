import Foundation
import GRDB

/// The `Z_METADATA` row: the store UUID and a binary property list with the store type and
/// the model's version hashes, as Core Data writes it.
struct StoreMetadata {
    var identifier: String
    var dictionary: [String: Any]

    /// Entity version hashes recorded when the store was created or last migrated.
    var entityHashes: [String: Data] {
        (dictionary["NSStoreModelVersionHashes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
    }

    /// `NSPersistenceFrameworkVersion`: Core Data's build number, or `Nimbus <version>`.
    var frameworkVersion: String? {
        switch dictionary["NSPersistenceFrameworkVersion"] {
        case let text as String: text
        case let number as NSNumber: number.stringValue
        case let number as Int: String(number)
        default: nil
        }
    }

    /// Whether Apple's Core Data wrote the store (its version hashes are Apple's, not Nimbus's).
    var isWrittenByCoreData: Bool {
        dictionary["NimbusModelVersionHash"] == nil && !(frameworkVersion ?? "").hasPrefix("Nimbus")
    }

    init(identifier: String, model: ManagedObjectModel, configuration: String?) {
        self.identifier = identifier
        var hashes: [String: Data] = [:]
        for entity in model.entities(forConfiguration: configuration) { hashes[entity.name] = entity.versionHash }
        dictionary = [
            "NSStoreType": "SQLite",
            "NSStoreUUID": identifier,
            "NSStoreModelVersionHashes": hashes,
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": model.versionIdentifiers.sorted(),
            "NSPersistenceFrameworkVersion": "Nimbus \(Nimbus.version)",
            "NimbusModelVersionHash": model.versionHash,
        ]
        if let configuration { dictionary[StoreInspector.configurationKey] = configuration }
    }

    init(identifier: String, dictionary: [String: Any]) {
        self.identifier = identifier
        self.dictionary = dictionary
    }

    func write(_ db: Database) throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        try db.execute(sql: "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                       arguments: [identifier, plist])
    }

    static func read(_ db: Database) throws -> StoreMetadata? {
        guard try db.tableExists("Z_METADATA"),
              let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") else { return nil }
        guard let identifier = row["Z_UUID"] as String? else { return nil }
        var dictionary: [String: Any] = [:]
        if let plist = row["Z_PLIST"] as Data?,
           let decoded = try? PropertyListSerialization.propertyList(from: plist, options: [], format: nil) as? [String: Any] {
            dictionary = decoded
        }
        return StoreMetadata(identifier: identifier, dictionary: dictionary)
    }
}
