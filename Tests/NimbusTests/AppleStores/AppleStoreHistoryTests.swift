import Foundation
import GRDB
import NimbusTesting
import Testing
@testable import Nimbus

/// Persistent history in the tables Apple's Core Data writes (`ATRANSACTION`, `ACHANGE` with
/// `ZTOMBSTONE0…` columns, `ATRANSACTIONSTRING`). None of the fixtures tracks history, so the
/// tables are added to a copy in Apple's shape.
@Suite("Apple's stores: persistent history", .enabled(if: AppleStoreFixtures.available))
struct AppleStoreHistoryTests {
    @Test("transactions and changes are read, with the author and the changed objects")
    func history() throws {
        let store = "store2-92-0.sqlite"
        let model = try AppleStoreFixtures.model(for: store)
        let folder = try TemporaryDirectory()
        let url = folder.file(store)
        try FileManager.default.copyItem(at: AppleStoreFixtures.url(store), to: url)
        let user = model.entitiesByName["User"]!.entityNumber, conversation = model.entitiesByName["Conversation"]!.entityNumber
        let queue = try DatabaseQueue(path: url.path)
        let (userKey, conversationKey) = try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER,
                    ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZQUERYGEN BLOB);
                CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER,
                    ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB, ZTOMBSTONE0 VARCHAR);
                INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 2), (16002, 'TRANSACTION', 0, 1), (16003, 'TRANSACTIONSTRING', 0, 2);
                INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'app'), (2, 16003, 1, 'com.example.app');
                INSERT INTO ATRANSACTION VALUES (1, 16002, 1, 1, 2, NULL, NULL, 700000000.5, NULL);
                """)
            let userKey = try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM ZUSER")!
            let conversationKey = try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM ZCONVERSATION")!
            try db.execute(sql: "INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, ?, ?, 1, NULL, NULL), (2, 16001, 1, 1, ?, ?, 1, X'02', NULL)",
                           arguments: [user, userKey, conversation, conversationKey])
            return (userKey, conversationKey)
        }
        try queue.close()

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let transactions = try context.performAndWait {
            try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        }
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.author == "app" && transaction.bundleID == "com.example.app")
        #expect(transaction.timestamp == Date(timeIntervalSinceReferenceDate: 700000000.5))
        let changes = try #require(transaction.changes)
        #expect(changes.map(\.changeType) == [.insert, .update])
        #expect(changes.map { "\($0.changedObjectID.entity.name)/\($0.changedObjectID.primaryKey)" } == ["User/\(userKey)", "Conversation/\(conversationKey)"])
        // Apple numbers the ZCOLUMNS bitmap its own way: not read as Nimbus's property indexes.
        #expect(changes.allSatisfy { $0.updatedProperties == nil })
    }
}
