import Foundation
import GRDB
import Testing
import Nimbus
import NimbusTesting

/// A child process saves notes and indexes them after each save, and is killed with SIGKILL
/// at random moments; after each kill the index must hold exactly what history up to its
/// cursor says (entries and cursor are written in one transaction), and a new indexer must
/// resume from there, without a rebuild, to an index of every note.
@Suite("Search index durability")
struct SearchIndexDurabilityTests {
    /// The notes alive after replaying history up to `cursor`.
    static func expectedEntries(upTo cursor: Int64, _ db: Database) throws -> Set<Int64> {
        var alive: Set<Int64> = []
        for row in try Row.fetchAll(db, sql: "SELECT ZCHANGETYPE, ZENTITYPK FROM ACHANGE WHERE ZTRANSACTIONID <= ? ORDER BY Z_PK", arguments: [cursor]) {
            let pk: Int64 = row[1]
            if (row[0] as Int) == 2 { alive.remove(pk) } else { alive.insert(pk) }
        }
        return alive
    }

    @Test("SIGKILL while indexing never leaves the index out of step with its cursor; the next run resumes")
    func killedWhileIndexing() throws {
        let folder = try TemporaryDirectory()
        let store = folder.file("Search.sqlite")
        var generator = SystemRandomNumberGenerator()
        var indexedRounds = 0
        var checkedEntries = 0
        for round in 0..<12 {
            var entriesThisRound = 0
            let process = Process()
            process.executableURL = DurabilityTests.workerURL
            process.arguments = ["search", store.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let reader = LineReader(pipe.fileHandleForReading)
            let ready = try #require(reader.nextLine(), "round \(round): the worker printed nothing")
            #expect(ready == "ready")
            usleep(UInt32.random(in: 5_000...60_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if reader.remainingLines().contains(where: { $0.hasPrefix("indexed ") }) { indexedRounds += 1 }

            let queue = try DatabaseQueue(path: store.path)
            try queue.read { db in
                #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
                guard let cursor = try Int64.fetchOne(db, sql: "SELECT ZTRANSACTION FROM ANIMBUSHISTORYCONSUMER WHERE ZNAME = 'NimbusSearchIndex'"),
                      try String.fetchOne(db, sql: "SELECT ZVALUE FROM ANIMBUSSEARCHINFO WHERE ZKEY = 'state'") == "ready" else { return }
                let entries = Set(try Int64.fetchAll(db, sql: "SELECT rowid & 1099511627775 FROM ANIMBUSSEARCH"))
                #expect(entries == (try Self.expectedEntries(upTo: cursor, db)), "round \(round): entries differ from history up to \(cursor)")
                entriesThisRound = entries.count
            }
            checkedEntries = max(checkedEntries, entriesThisRound)
            try queue.close()
        }
        #expect(indexedRounds > 0, "the worker should have indexed in some round")
        #expect(checkedEntries > 0, "some round should have checked a non-empty index")

        // A relaunch resumes from the cursor and ends with every note, once.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try DurabilityModel.makeSearch())
        var description = PersistentStoreDescription(url: store)
        description.persistentHistoryTracking = true
        try coordinator.addPersistentStore(with: description)
        let indexer = try SearchIndexer(coordinator: coordinator)
        let update = try indexer.indexPendingChanges()
        #expect(!update.rebuilt)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let notes = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) }
        #expect(notes > 0)
        #expect(try indexer.search("common", limit: 1_000_000).count == notes)
    }
}
