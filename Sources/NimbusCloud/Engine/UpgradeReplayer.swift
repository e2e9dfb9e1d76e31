import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// Applies what a model upgrade made applicable (see ``UpgradeReplay``): the newly known
/// fields of records already here, read from their ancestors (which kept every field the
/// older model could not apply), and the quarantined records (entities and relationships
/// the older model did not know), tried again.
///
/// Runs before the first sync after the upgrade; the replay state is cleared only when it is
/// done, so an interrupted replay runs again (applying a field twice changes nothing).
struct UpgradeReplayer {
    let mirror: StoreMirror
    /// Records per transaction.
    var pageSize = 400

    /// Returns how many records it applied fields of.
    @discardableResult
    func run() async throws -> Int {
        guard let replay = try mirror.store.readTransaction({ db in try UpgradeReplay.stored(db) }), !replay.isEmpty else { return 0 }
        var applied = 0
        for (entityName, properties) in replay.properties.sorted(by: { $0.key < $1.key }) {
            guard let entity = mirror.mirrored.entities.first(where: { $0.name == entityName }) else { continue }
            applied += try await replayAncestors(of: entity, properties: properties)
        }
        if replay.retryQuarantine || !replay.entities.isEmpty {
            try await Importer(mirror: mirror).retryQuarantined()
        }
        try mirror.store.writeTransaction { db in try UpgradeReplay().save(db) }
        if applied > 0 { mirror.log.notice("applied fields of \(applied) record(s) that arrived before the model upgrade") }
        return applied
    }

    /// Feeds the newly known fields of every record of `entity` that holds them back through
    /// the importer, with the ancestor check off (those fields were never applied).
    private func replayAncestors(of entity: EntityDescription, properties: Set<String>) async throws -> Int {
        let fieldNames = Set(properties.flatMap { [MirroredModel.fieldName($0), MirroredModel.assetFieldName($0)] })
        var after: Int64 = -1
        var applied = 0
        var importer = Importer(mirror: mirror)
        importer.replaying = true
        while true {
            let (records, last) = try mirror.store.readTransaction { db -> ([Record], Int64?) in
                var records: [Record] = []
                var last: Int64?
                let rows = try Row.fetchAll(db, sql: """
                    SELECT ZPK, ZANCESTOR FROM ANIMBUSCLOUDRECORD WHERE ZENTITY = ? AND ZPK > ? AND ZANCESTOR IS NOT NULL
                    ORDER BY ZPK LIMIT ?
                    """, arguments: [entity.entityNumber, after, pageSize])
                for row in rows {
                    last = row[0]
                    guard let data = row[1] as Data? else { continue }
                    let ancestor = try WireCoding.record(from: data)
                    var partial = Record(recordName: ancestor.recordName, recordType: ancestor.recordType)
                    partial.changeTag = ancestor.changeTag
                    partial.created = ancestor.created
                    partial.modified = ancestor.modified
                    for (key, field) in ancestor.fields where fieldNames.contains(key) { partial.fields[key] = field }
                    guard !partial.fields.isEmpty else { continue }
                    if let name = ancestor.fields[MirroredModel.entityNameField] { partial.fields[MirroredModel.entityNameField] = name }
                    records.append(partial)
                }
                return (records, last)
            }
            guard let last else { break }
            after = last
            if !records.isEmpty {
                applied += try await importer.applyIsolating(records, deletions: [], token: nil).applied
            }
        }
        return applied
    }
}
