import Foundation
import GRDB
import NimbusTesting
import Testing
@testable import Nimbus

/// A Nimbus store made with the model version an Apple store was written with has Apple's
/// tables, columns, types and entity numbers (decision 0120).
@Suite("Apple's stores: the layout a model implies", .enabled(if: AppleStoreFixtures.available))
struct AppleStoreLayoutTests {
    /// Entity and join tables: name to "COLUMN TYPE" entries.
    static func tables(_ db: Database) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        let names = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name LIKE 'Z%'")
        for name in names where !["Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"].contains(name) {
            result[name] = Set(try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(name.quotedDatabaseIdentifier))").map {
                "\($0["name"] as String) \(($0["type"] as String).uppercased())"
            })
        }
        return result
    }

    static func primaryKeys(_ db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
    }

    @Test("table by table, a new Nimbus store has the columns Apple's Core Data wrote", arguments: AppleStoreFixtures.stores)
    func sameTables(store: String) throws {
        let model = try AppleStoreFixtures.model(for: store)
        let folder = try TemporaryDirectory()
        let url = folder.file("nimbus.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let created = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        try coordinator.removePersistentStore(created)
        let mine = try AppleStoreFixtures.raw(url: url) { db in (try Self.tables(db), try Self.primaryKeys(db)) }
        let apple = try AppleStoreFixtures.raw(store) { db in (try Self.tables(db), try Self.primaryKeys(db)) }
        #expect(mine.1 == apple.1, "Z_PRIMARYKEY differs")

        // Which side of a relationship between an entity and itself names the join table is
        // Core Data's free choice (it differs between stores of one model); the columns are not.
        let layout = try AppleStoreFixtures.raw(store) { db in try StoreLayout.compare(db, model: model, configuration: nil) }
        #expect(layout.1.isEmpty, "\(layout.1)")
        #expect(layout.0.columnAliases.isEmpty, "\(layout.0.columnAliases)")
        var differences: [String] = []
        let aliasOf = Dictionary(uniqueKeysWithValues: layout.0.tableAliases.map { ($1, $0) })
        for (name, columns) in apple.0.sorted(by: { $0.key < $1.key }) {
            let nimbusName = aliasOf[name] ?? name
            guard let nimbus = mine.0[nimbusName] else { differences.append("\(name): Nimbus has no such table"); continue }
            let missing = columns.subtracting(nimbus).sorted(), extra = nimbus.subtracting(columns).sorted()
            if !missing.isEmpty { differences.append("\(name): Nimbus lacks \(missing)") }
            if !extra.isEmpty { differences.append("\(name): Nimbus adds \(extra)") }
        }
        let appleNames = Set(apple.0.keys.map { aliasOf[$0] ?? $0 })
        for name in mine.0.keys.sorted() where !appleNames.contains(name) { differences.append("\(name): Apple has no such table") }
        #expect(differences.isEmpty, "\(store): \(differences.joined(separator: "\n"))")
        for (expected, found) in layout.0.tableAliases {
            let join = try #require(model.schema.joinTables.first { $0.name == expected })
            let n = join.firstColumn.dropFirst(2).prefix { $0.isNumber }, m = join.secondColumn.dropFirst(2).prefix { $0.isNumber }
            #expect(n == m, "\(expected) is \(found) in \(store), and is not between an entity and itself")
        }
    }
}
