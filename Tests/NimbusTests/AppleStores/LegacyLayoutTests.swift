import Foundation
import GRDB
import NimbusTesting
import Testing
@testable import Nimbus

/// Nimbus stores written before Nimbus took Core Data's names (decision 0002's names) still
/// open: read-only through views, and read-write after their tables are renamed once
/// (decision 0120).
@Suite("Stores written with Nimbus's earlier names")
struct LegacyLayoutTests {
    static let body = """
        <entity name="Item" representedClassName="Item" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Node" inverseName="items" inverseEntity="Node"/>
            <relationship name="leaf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Leaf" inverseName="leafItems" inverseEntity="Leaf"/>
        </entity>
        <entity name="Node" representedClassName="Node" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
            <relationship name="follows" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="followers" inverseEntity="Node"/>
            <relationship name="followers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="follows" inverseEntity="Node"/>
            <relationship name="lists" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Tagging" inverseName="nodes" inverseEntity="Tagging"/>
        </entity>
        <entity name="Leaf" representedClassName="Leaf" parentEntity="Node" syncable="YES">
            <relationship name="leafItems" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="leaf" inverseEntity="Item"/>
        </entity>
        <entity name="Tagging" representedClassName="Tagging" syncable="YES">
            <relationship name="nodes" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="lists" inverseEntity="Node"/>
        </entity>
        """

    @Test("the model implies Core Data's names")
    func names() throws {
        let schema = try XcodeModelFixtures.load(Self.body).schema
        let item = try #require(schema.tables.first { $0.name == "ZITEM" }).columns.map(\.name)
        #expect(item.contains("Z2_OWNER") && !item.contains("Z1_OWNER") && !item.contains { $0.hasSuffix("_LEAF") && $0 != "ZLEAF" })
        let joins = schema.joinTables.map { "\($0.name)(\([$0.firstColumn, $0.secondColumn] + $0.orderColumns))" }.sorted()
        #expect(joins == ["Z_2FOLLOWS([\"Z_2FOLLOWERS\", \"Z_2FOLLOWS\"])",
                          "Z_2LISTS([\"Z_2NODES\", \"Z_4LISTS\", \"Z_FOK_4LISTS\", \"Z_FOK_2NODES\"])"], "\(joins)")
    }

    @Test("both sides of a many-to-many relationship ordered on both sides keep their order")
    func orderedBothSides() throws {
        let model = try XcodeModelFixtures.load(Self.body)
        let folder = try TemporaryDirectory()
        let url = folder.file("ordered.sqlite")
        var coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        var context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let nodes = (0..<3).map { i -> ManagedObject in
                let node = ManagedObject(entity: model.entitiesByName["Node"]!, insertInto: context)
                node.setValue("n\(i)", forKey: "name")
                return node
            }
            let tagging = ManagedObject(entity: model.entitiesByName["Tagging"]!, insertInto: context)
            try context.save()
            tagging.setValue([nodes[2], nodes[0], nodes[1]], forKey: "nodes")
            try context.save()
            tagging.setValue([nodes[1], nodes[2], nodes[0]], forKey: "nodes")
            try context.save()
        }
        try coordinator.removePersistentStore(store)
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let names = try context.performAndWait { () throws -> [String] in
            let tagging = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tagging")).first)
            return (tagging.value(forKey: "nodes") as? [ManagedObject] ?? []).map { $0.value(forKey: "name") as! String }
        }
        #expect(names == ["n1", "n2", "n0"])
        try coordinator.removePersistentStore(store)
    }

    /// Title of each item with its owner's and leaf's names; each node's follows, followers,
    /// lists (in order) and items.
    static func read(_ context: ManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            var lines: [String] = []
            for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
                let owner = (item.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String
                let leaf = (item.value(forKey: "leaf") as? ManagedObject)?.value(forKey: "name") as? String
                lines.append("item \(item.value(forKey: "title") as! String) owner \(owner ?? "-") leaf \(leaf ?? "-")")
            }
            var request = FetchRequest<ManagedObject>(entityName: "Node")
            request.includesSubentities = true
            for node in try context.fetch(request) {
                func names(_ key: String) -> String {
                    ((node.value(forKey: key) as? Set<ManagedObject>) ?? []).map { $0.value(forKey: "name") as! String }.sorted().joined(separator: ",")
                }
                let lists = (node.value(forKey: "lists") as? [ManagedObject] ?? []).map { "\($0.objectID.primaryKey)" }.joined(separator: ",")
                lines.append("node \(node.value(forKey: "name") as! String) follows \(names("follows")) followers \(names("followers")) lists \(lists)")
            }
            return lines.sorted()
        }
    }

    @Test("read-only through views, read-write after a one-time rename, with every relationship as saved")
    func legacyStore() throws {
        let model = try XcodeModelFixtures.load(Self.body)
        let folder = try TemporaryDirectory()
        let url = folder.file("legacy.sqlite")
        var coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        var context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            func node(_ name: String, leaf: Bool = false) -> ManagedObject {
                let node = ManagedObject(entity: model.entitiesByName[leaf ? "Leaf" : "Node"]!, insertInto: context)
                node.setValue(name, forKey: "name")
                return node
            }
            let a = node("a"), b = node("b"), c = node("c", leaf: true)
            a.setValue(Set([b, c]), forKey: "follows")
            c.setValue(Set([a]), forKey: "follows")
            let t1 = ManagedObject(entity: model.entitiesByName["Tagging"]!, insertInto: context)
            let t2 = ManagedObject(entity: model.entitiesByName["Tagging"]!, insertInto: context)
            a.setValue([t2, t1], forKey: "lists")
            for (title, owner, leaf) in [("x", a, c), ("y", c, nil), ("z", nil, c)] as [(String, ManagedObject?, ManagedObject?)] {
                let item = ManagedObject(entity: model.entitiesByName["Item"]!, insertInto: context)
                item.setValue(title, forKey: "title")
                item.setValue(owner, forKey: "owner")
                item.setValue(leaf, forKey: "leaf")
            }
            try context.save()
        }
        let expected = try Self.read(context)
        try coordinator.removePersistentStore(store)

        // Give the file the names Nimbus wrote before decision 0120.
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "ALTER TABLE ZITEM RENAME COLUMN Z2_OWNER TO Z1_OWNER")
            try db.execute(sql: "ALTER TABLE ZITEM ADD COLUMN Z1_LEAF INTEGER")
            try db.execute(sql: "UPDATE ZITEM SET Z1_LEAF = 3 WHERE ZLEAF IS NOT NULL")
            try db.execute(sql: "ALTER TABLE Z_2FOLLOWS RENAME TO Z_2FOLLOWERS")
            try db.execute(sql: "ALTER TABLE Z_2LISTS DROP COLUMN Z_FOK_2NODES")
        }
        try queue.close()

        // Read-only: read through views; the file keeps its names.
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        store = try coordinator.addPersistentStore(with: description)
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        #expect(try Self.read(context) == expected)
        try coordinator.removePersistentStore(store)
        let tables = try AppleStoreFixtures.raw(url: url) { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(tables.contains("Z_2FOLLOWERS") && !tables.contains("Z_2FOLLOWS"))

        // Read-write: renamed once, then read and written as any store.
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        #expect(try Self.read(context) == expected)
        let layout = try AppleStoreFixtures.raw(url: url) { db in try StoreLayout.compare(db, model: model, configuration: nil) }
        #expect(layout.0.isExact && layout.1.isEmpty, "\(layout)")
        try context.performAndWait {
            let item = ManagedObject(entity: model.entitiesByName["Item"]!, insertInto: context)
            item.setValue("w", forKey: "title")
            var request = FetchRequest<ManagedObject>(entityName: "Leaf")
            request.includesSubentities = false
            item.setValue(try context.fetch(request).first, forKey: "owner")
            try context.save()
        }
        #expect(try Self.read(context).contains("item w owner c leaf -"))
        try coordinator.removePersistentStore(store)
    }
}
