import Foundation
import GRDB
import NimbusTesting
import Testing
@testable import Nimbus

/// Every object of every entity of Apple's stores, read through Nimbus with the model version
/// the store names, equals the store's rows read with SQLite directly.
@Suite("Apple's stores: every entity read and checked against the rows", .enabled(if: AppleStoreFixtures.available))
struct AppleStoreReadingTests {
    /// A copy of a fixture in a temporary folder, with the files its external-storage values
    /// name (the fixtures come without their `_SUPPORT` folder): each holds "external <name>".
    static func copyWithExternalFiles(_ store: String, model: ManagedObjectModel, into folder: TemporaryDirectory) throws -> (URL, Int) {
        let url = folder.file(store)
        try FileManager.default.copyItem(at: AppleStoreFixtures.url(store), to: url)
        let external = ExternalStorage.dataFolder(for: url)
        var files = 0
        try AppleStoreFixtures.raw(store) { db in
            for entity in model.entities {
                let mapping = model.schema.mapping(for: entity)
                for (index, property) in entity.properties.enumerated() {
                    guard let attribute = property.attribute, attribute.allowsExternalBinaryDataStorage,
                          case let .column(column) = mapping.storage[index] else { continue }
                    for blob in try Data.fetchAll(db, sql: "SELECT \(column.quotedDatabaseIdentifier) FROM \(mapping.table.quotedDatabaseIdentifier) WHERE Z_ENT = ? AND \(column.quotedDatabaseIdentifier) IS NOT NULL", arguments: [entity.entityNumber]) {
                        guard let name = ExternalStorage.fileName(in: blob) else { continue }
                        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
                        try Data("external \(name)".utf8).write(to: external.appendingPathComponent(name))
                        files += 1
                    }
                }
            }
        }
        return (url, files)
    }

    /// What a raw column value must read as, by the attribute's type (Core Data's encodings:
    /// dates as seconds since 2001, booleans as 0/1, external-storage values behind a marker).
    static func expected(_ raw: DatabaseValue, _ attribute: AttributeDescription, external: URL) throws -> PropertyValue {
        switch (raw.storage, attribute.type) {
        case (.null, _): return .null
        case let (.int64(v), .integer16), let (.int64(v), .integer32), let (.int64(v), .integer64): return .integer(v)
        case let (.int64(v), .boolean): return .bool(v != 0)
        case let (.double(v), .double), let (.double(v), .float): return .double(v)
        case let (.int64(v), .double), let (.int64(v), .float): return .double(Double(v))
        case let (.double(v), .date): return .date(Date(timeIntervalSinceReferenceDate: v))
        case let (.int64(v), .date): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case let (.string(v), .string): return .string(v)
        case let (.blob(v), .binaryData) where attribute.allowsExternalBinaryDataStorage && v.first == 1: return .data(v.dropFirst())
        case let (.blob(v), .binaryData) where attribute.allowsExternalBinaryDataStorage && v.first == 2:
            let name = String(decoding: v.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            return .data(try Data(contentsOf: external.appendingPathComponent(name)))
        case let (.blob(v), .binaryData), let (.blob(v), .transformable): return .data(v)
        default: throw NimbusError(.typeMismatch, "unexpected raw value \(raw) for \(attribute.type)")
        }
    }

    @Test("every attribute and relationship of every object equals the raw row", arguments: AppleStoreFixtures.stores)
    func everyEntity(store: String) throws {
        let model = try AppleStoreFixtures.model(for: store)
        let folder = try TemporaryDirectory()
        let (url, _) = try Self.copyWithExternalFiles(store, model: model, into: folder)
        let external = ExternalStorage.dataFolder(for: url)
        let layout = try AppleStoreFixtures.raw(url: url) { db in try StoreLayout.compare(db, model: model, configuration: nil).0 }
        func table(_ name: String) -> String { (layout.tableAliases[name] ?? name).quotedDatabaseIdentifier }

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        var checked = (objects: 0, values: 0, decodedArchives: 0)
        var mismatches: [String] = []
        try context.performAndWait {
            try AppleStoreFixtures.raw(url: url) { db in
                for entity in model.entities {
                    let mapping = model.schema.mapping(for: entity)
                    var request = FetchRequest<ManagedObject>(entityName: entity.name)
                    request.includesSubentities = false
                    let objects = try context.fetch(request)
                    let rawCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table(mapping.table)) WHERE Z_ENT = ?", arguments: [entity.entityNumber])!
                    if objects.count != rawCount { mismatches.append("\(entity.name): \(objects.count) objects, \(rawCount) rows") }
                    for object in objects {
                        checked.objects += 1
                        let key = object.objectID.primaryKey
                        let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM \(table(mapping.table)) WHERE Z_PK = ?", arguments: [key]))
                        #expect(row["Z_ENT"] as Int == entity.entityNumber)
                        for (index, property) in entity.properties.enumerated() {
                            let name = "\(entity.name).\(property.name) of \(key)"
                            switch (property, mapping.storage[index]) {
                            case let (.attribute(attribute), .column(column)):
                                let expected = try Self.expected(row[column] as DatabaseValue, attribute, external: external)
                                let value = object.primitiveValue(forKey: property.name) ?? .null
                                if value != expected { mismatches.append("\(name): \(value) != \(expected)") }
                                if attribute.type == .transformable, !expected.isNull {
                                    let decoded = try object.validatedValue(forKey: property.name)
                                    if !(decoded is Data) { checked.decodedArchives += 1 }
                                }
                                checked.values += 1
                            case let (.relationship, .foreignKey(column, entityColumn)):
                                let value = object.primitiveValue(forKey: property.name) ?? .null
                                let rawKey = row[column] as Int64?
                                if case let .object(id) = value {
                                    if id.primaryKey != rawKey { mismatches.append("\(name): to \(id.primaryKey), row has \(String(describing: rawKey))") }
                                    if let entityColumn, id.entity.entityNumber != row[entityColumn] as Int? {
                                        mismatches.append("\(name): to entity \(id.entity.name), row has \(String(describing: row[entityColumn] as Int?))")
                                    }
                                } else if rawKey != nil {
                                    mismatches.append("\(name): nil, row has \(rawKey!)")
                                }
                                checked.values += 1
                            case let (.relationship(relationship), .inverseForeignKey(destinationTable, column, _, orderColumn)):
                                let ids = try object.objectIDs(forRelationshipNamed: property.name).map(\.primaryKey)
                                let order = (orderColumn.map { "\($0.quotedDatabaseIdentifier), " } ?? "") + "Z_PK"
                                let raw = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(table(destinationTable)) WHERE \(column.quotedDatabaseIdentifier) = ? ORDER BY \(order)", arguments: [key])
                                if relationship.isOrdered ? ids != raw : Set(ids) != Set(raw) { mismatches.append("\(name): \(ids) != rows \(raw)") }
                                checked.values += 1
                            case let (.relationship(relationship), .joinTable(join, source, destination, orderColumn)):
                                let ids = try object.objectIDs(forRelationshipNamed: property.name).map(\.primaryKey)
                                let order = (orderColumn.map { "\($0.quotedDatabaseIdentifier), " } ?? "") + destination.quotedDatabaseIdentifier
                                let raw = try Int64.fetchAll(db, sql: "SELECT \(destination.quotedDatabaseIdentifier) FROM \(table(join.name)) WHERE \(source.quotedDatabaseIdentifier) = ? ORDER BY \(order)", arguments: [key])
                                if relationship.isOrdered ? ids != raw : Set(ids) != Set(raw) { mismatches.append("\(name): \(ids) != join rows \(raw)") }
                                checked.values += 1
                            default:
                                continue
                            }
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(store): \(mismatches.prefix(20).joined(separator: "\n"))")
        #expect(checked.objects > 10 && checked.values > checked.objects, "\(checked)")
    }
}
