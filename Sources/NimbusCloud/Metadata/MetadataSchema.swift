import Foundation
import GRDB
import Nimbus

/// What the sync metadata's entity numbers and fields meant when they were written: each
/// mirrored entity's number, and its mirrored properties.
///
/// Entity numbers follow the model (alphabetically), so a model version that adds an entity
/// renumbers them, while the metadata tables key objects by number. When a mirrored store
/// loads, ``reconcile(_:_:)`` brings the metadata to the model in use, in one transaction:
/// numbers remapped by entity name, rows of removed entities dropped, and what the previous
/// model did not know remembered as an ``UpgradeReplay`` (what arrived for it before the
/// upgrade is kept in ancestors and in quarantine, and is applied at the next sync).
struct MetadataSchema: Codable, Equatable, Sendable {
    /// Entity name → entity number.
    var entities: [String: Int]
    /// Entity name → its mirrored properties (attributes and relationships), sorted.
    var properties: [String: [String]]
    /// Entities an earlier model had and a later one removed: their records are skipped
    /// quietly, not quarantined.
    var retired: [String] = []

    init(mirrored: MirroredModel) {
        entities = Dictionary(uniqueKeysWithValues: mirrored.entities.map { ($0.name, $0.entityNumber) })
        properties = mirrored.roles.mapValues { $0.keys.sorted() }
    }

    static func stored(_ db: Database) throws -> MetadataSchema? {
        guard let text = String.fromDatabaseValue(try SyncMetadata.state(.schema, db)) else { return nil }
        do { return try JSONDecoder().decode(MetadataSchema.self, from: Data(text.utf8)) } catch {
            throw CloudError(.server, "the store's sync metadata schema is damaged (\(error)); rebuild the store from the cloud")
        }
    }

    func save(_ db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try SyncMetadata.setState(.schema, String(decoding: try encoder.encode(self), as: UTF8.self), db)
    }

    /// Brings the metadata written under an earlier model to `mirrored` (see the type's
    /// documentation). Returns whether the model changed since the metadata was written.
    @discardableResult
    static func reconcile(_ mirrored: MirroredModel, _ db: Database) throws -> Bool {
        var current = MetadataSchema(mirrored: mirrored)
        guard let stored = try stored(db) else {
            try current.save(db)
            return false
        }
        current.retired = stored.retired.filter { current.entities[$0] == nil }
        for (name, _) in stored.entities where current.entities[name] == nil && !current.retired.contains(name) {
            current.retired.append(name)
        }
        current.retired.sort()
        guard current != stored else { return false }

        var renumbered: [Int: Int] = [:]
        var removed: [Int] = []
        for (name, old) in stored.entities {
            if let new = current.entities[name] {
                if new != old { renumbered[old] = new }
            } else {
                removed.append(old)
            }
        }
        try dropRows(ofEntities: removed, db)
        try renumber(renumbered, db)

        var replay = try UpgradeReplay.stored(db) ?? UpgradeReplay()
        for (entity, names) in current.properties {
            guard let before = stored.properties[entity] else {
                replay.entities.insert(entity)
                continue
            }
            let added = Set(names).subtracting(before)
            if !added.isEmpty { replay.properties[entity, default: []].formUnion(added) }
        }
        replay.retryQuarantine = true
        try replay.save(db)
        try current.save(db)
        return true
    }

    /// The metadata of objects whose entity the model no longer has (migration dropped their
    /// rows): they are forgotten here, not deleted on the server (devices on the older model
    /// still use them). Unsent deletions of their records still go out.
    private static func dropRows(ofEntities numbers: [Int], _ db: Database) throws {
        guard !numbers.isEmpty else { return }
        let list = numbers.map(String.init).joined(separator: ",")
        try db.execute(sql: """
            DELETE FROM ANIMBUSCLOUDRECORD WHERE ZENTITY IN (\(list));
            DELETE FROM ANIMBUSCLOUDPENDING WHERE ZENTITY IN (\(list));
            DELETE FROM ANIMBUSCLOUDLINK WHERE ZFIRSTENTITY IN (\(list)) OR ZSECONDENTITY IN (\(list));
            UPDATE ANIMBUSCLOUDDELETION SET ZENTITY = 0 WHERE ZENTITY IN (\(list));
            """)
    }

    /// Rewrites entity numbers old → new in every metadata table, through negative numbers
    /// so that a swap of two numbers never collides with a primary key on the way.
    private static func renumber(_ map: [Int: Int], _ db: Database) throws {
        guard !map.isEmpty else { return }
        let old = map.keys.map(String.init).joined(separator: ",")
        func cases(_ column: String) -> String {
            "CASE \(column) " + map.map { "WHEN \($0.key) THEN \(-$0.value)" }.joined(separator: " ") + " ELSE \(column) END"
        }
        try db.execute(sql: """
            UPDATE ANIMBUSCLOUDRECORD SET ZENTITY = \(cases("ZENTITY")) WHERE ZENTITY IN (\(old));
            UPDATE ANIMBUSCLOUDRECORD SET ZENTITY = -ZENTITY WHERE ZENTITY < 0;
            UPDATE ANIMBUSCLOUDPENDING SET ZENTITY = \(cases("ZENTITY")) WHERE ZENTITY IN (\(old));
            UPDATE ANIMBUSCLOUDPENDING SET ZENTITY = -ZENTITY WHERE ZENTITY < 0;
            UPDATE ANIMBUSCLOUDDELETION SET ZENTITY = \(cases("ZENTITY")) WHERE ZENTITY IN (\(old));
            UPDATE ANIMBUSCLOUDDELETION SET ZENTITY = -ZENTITY WHERE ZENTITY < 0;
            UPDATE ANIMBUSCLOUDLINK SET ZFIRSTENTITY = \(cases("ZFIRSTENTITY")), ZSECONDENTITY = \(cases("ZSECONDENTITY"))
                WHERE ZFIRSTENTITY IN (\(old)) OR ZSECONDENTITY IN (\(old));
            UPDATE ANIMBUSCLOUDLINK SET ZFIRSTENTITY = abs(ZFIRSTENTITY), ZSECONDENTITY = abs(ZSECONDENTITY)
                WHERE ZFIRSTENTITY < 0 OR ZSECONDENTITY < 0;
            """)
    }
}
