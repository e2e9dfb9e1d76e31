import BenchmarkScenarios
import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// Short documents for the search scenarios: a `Note` entity (`ZNOTE`) whose `text` (4 to 8
/// words from a 20,000-word vocabulary, one word in ten accented) is marked for search and
/// whose `title` is the display name.
enum NoteStore {
    static let model: ManagedObjectModel = try! ManagedObjectModel(entities: [
        EntityDescription("Note", attributes: [
            AttributeDescription("title", .string),
            AttributeDescription("text", .string, isIndexedBySpotlight: true),
        ], spotlightDisplayNameProperty: "title"),
    ])

    static let syllables = ["ka", "lo", "mi", "ré", "su", "ta", "ne", "vo", "pi", "zü", "ra", "de", "fo", "gu", "hi", "ja",
                            "be", "co", "da", "el", "fa", "gi", "ho", "in", "ju", "ke", "li", "ma", "no", "op"]

    /// The `index`th word: three syllables (30³ = 27,000 words; the first 20,000 are used).
    static func word(_ index: Int) -> String {
        syllables[index % 30] + syllables[(index / 30) % 30] + syllables[(index / 900) % 30]
    }

    /// The `index`th document's text.
    static func text(_ index: Int) -> String {
        var generator = PointStore.Generator(state: UInt64(index) &* 2_654_435_761)
        let count = 4 + Int(generator.next() * 5)
        return (0..<count).map { _ in word(Int(generator.next() * 20_000)) }.joined(separator: " ")
    }

    /// What users type: words without their accents, in capitals, some as prefixes.
    static func queries() -> [String] {
        (0..<100).map { i in
            let word = self.word(i * 197 % 20_000).folding(options: .diacriticInsensitive, locale: nil)
            return i % 4 == 0 ? String(word.prefix(4)) + "*" : word.uppercased()
        }
    }

    static func coordinator(_ file: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: file)
        description.persistentHistoryTracking = true
        try coordinator.addPersistentStore(with: description)
        return coordinator
    }

    /// Inserts documents `range` by batch inserts of `chunk` (one history transaction each).
    static func insert(_ range: Range<Int>, chunk: Int, into coordinator: PersistentStoreCoordinator) throws {
        let context = ItemStore.context(coordinator)
        try context.performAndWait { () throws in
            for start in stride(from: range.lowerBound, to: range.upperBound, by: chunk) {
                let objects: [[String: Any]] = (start..<min(start + chunk, range.upperBound)).map { ["title": "note \($0)", "text": text($0)] }
                _ = try context.execute(BatchInsertRequest(entityName: "Note", objects: objects))
            }
        }
    }

    /// The search statement every contender runs: best 20 by BM25 with a snippet.
    static let searchSQL = """
        SELECT rowid, ZENTITY, ZDISPLAYNAME, snippet(ANIMBUSSEARCH, -1, '[', ']', '…', 12), bm25(ANIMBUSSEARCH, 2.0, 1.0) AS rank \
        FROM ANIMBUSSEARCH WHERE ANIMBUSSEARCH MATCH ? ORDER BY rank LIMIT 20
        """
}

extension QueryFixtures {
    /// 1,000,000 notes with history and a built search index (read-only).
    func notes() throws -> URL {
        try fixture("notes-1M") { file in
            let coordinator = try NoteStore.coordinator(file)
            try NoteStore.insert(0..<(1_000_000 / divisor), chunk: 100_000 / divisor, into: coordinator)
            let clock = ContinuousClock()
            let indexer = try SearchIndexer(coordinator: coordinator)
            let elapsed = try clock.measure { try indexer.indexPendingChanges() }
            FileHandle.standardError.write(Data("built the search index of \(1_000_000 / divisor) notes in \(elapsed)\n".utf8))
            let raw = try RawConnection(file)
            try raw.checkpoint()
        }
    }

    /// An indexed, empty store, then 100,000 notes in ten transactions the indexer has not read.
    func pendingNotes() throws -> URL {
        try fixture("notes-pending-100k") { file in
            let coordinator = try NoteStore.coordinator(file)
            try SearchIndexer(coordinator: coordinator).indexPendingChanges()
            try NoteStore.insert(0..<(100_000 / divisor), chunk: 10_000 / divisor, into: coordinator)
            let raw = try RawConnection(file)
            try raw.checkpoint()
        }
    }
}

extension QueryScenario {
    /// One search per run, the 100 queries in turn, on 1,000,000 notes: Nimbus's
    /// `SearchIndexer.search` against the same FTS5 statement run by raw C and GRDB.
    nonisolated(unsafe) public static let searchFTS = QueryScenario(
        key: "searchFTS", title: "full-text search, best 20 with snippets, on 1,000,000 short documents (one query per run)",
        runs: 300, percentiles: true
    ) { fixtures in
        let file = try fixtures.notes()
        let rows = 1_000_000 / fixtures.divisor
        let queries = NoteStore.queries()
        let expressions = try queries.map { try SearchQuery($0).matchExpression }
        var next = 0
        var found = 0
        func verify(_ who: String) throws {
            try check(found > 0, "\(who) found nothing for \(queries[(next + queries.count - 1) % queries.count])")
            found = 0
        }

        let indexer = try SearchIndexer(coordinator: try NoteStore.coordinator(file))
        let nimbus = QueryCase("Nimbus SearchIndexer", rows: rows, run: {
            found = try indexer.search(queries[next % queries.count], limit: 20).count
            next += 1
        }, verify: { try verify("Nimbus") })

        let raw = try RawConnection(file)
        var rawNext = 0
        let rawCase = QueryCase("raw SQLite C, FTS5", rows: rows, run: {
            let statement = try raw.prepare(NoteStore.searchSQL)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_text(statement, 1, expressions[rawNext % expressions.count], -1, RawConnection.transient)
            rawNext += 1
            var hits: [(Int64, String)] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                hits.append((sqlite3_column_int64(statement, 0), String(cString: sqlite3_column_text(statement, 3))))
            }
            found = hits.count
        }, verify: { try check(found > 0, "raw C found nothing"); found = 0 })

        let pool = try DatabasePool(path: file.path)
        var grdbNext = 0
        let grdb = QueryCase("GRDB, FTS5", rows: rows, run: {
            let expression = expressions[grdbNext % expressions.count]
            grdbNext += 1
            found = try pool.read { db in try Row.fetchAll(db, sql: NoteStore.searchSQL, arguments: [expression]).count }
        }, verify: { try check(found > 0, "GRDB found nothing"); found = 0 })
        return [nimbus, rawCase, grdb]
    }

    /// The same words found without the index: a fetch with `text CONTAINS[cd] %@` (every
    /// match's ID; a full scan folding each text), and raw C's `instr(lower(…))` (no
    /// diacritic folding, so a lower bound).
    nonisolated(unsafe) public static let searchContains = QueryScenario(
        key: "searchContains", title: "the same search as a CONTAINS[cd] fetch on 1,000,000 short documents (one query per run)",
        runs: 15, percentiles: true
    ) { fixtures in
        let file = try fixtures.notes()
        let rows = 1_000_000 / fixtures.divisor
        let words = NoteStore.queries().map { $0.hasSuffix("*") ? String($0.dropLast()) : $0 }
        var next = 0
        var found = 0
        let coordinator = try NoteStore.coordinator(file)
        var context: ManagedObjectContext?
        let nimbus = QueryCase("Nimbus, CONTAINS[cd] fetch", rows: rows, prepare: { context = ItemStore.context(coordinator) }, run: {
            let context = context!
            let word = words[next % words.count]
            next += 1
            found = try context.performAndWait { () throws in
                var request = FetchRequest<ManagedObjectID>(entityName: "Note")
                request.predicate = try QueryPredicate(format: "text CONTAINS[cd] %@", word)
                return try context.fetch(request).count
            }
        }, verify: { try check(found > 0, "Nimbus found nothing"); found = 0; context = nil })

        let raw = try RawConnection(file)
        var rawNext = 0
        let rawCase = QueryCase("raw SQLite C, instr(lower())", rows: rows, run: {
            let statement = try raw.prepare("SELECT Z_PK FROM ZNOTE WHERE instr(lower(ZTEXT), ?) > 0")
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_text(statement, 1, words[rawNext % words.count].lowercased(), -1, RawConnection.transient)
            rawNext += 1
            var keys: [Int64] = []
            while sqlite3_step(statement) == SQLITE_ROW { keys.append(sqlite3_column_int64(statement, 0)) }
            found = keys.count
        }, verify: {
            // No diacritic folding: a query typed without accents finds nothing when its word is
            // stored accented (one word in ten), so raw C's count is a lower bound and may be 0.
            found = 0
        })
        return [nimbus, rawCase]
    }

    /// Indexing throughput from history: 100,000 notes in ten transactions the indexer has
    /// not read, indexed by `indexPendingChanges()` (batches of 100 transactions); raw C and
    /// GRDB insert the same texts into a bare FTS5 table of the same shape in one
    /// transaction (the floor: no history, no objects).
    nonisolated(unsafe) public static let searchIndexing = QueryScenario(
        key: "searchIndexing", title: "index 100,000 short documents from persistent history", runs: 5
    ) { fixtures in
        let source = try fixtures.pendingNotes()
        let rows = 100_000 / fixtures.divisor
        let scratch = fixtures.scratch
        var file: URL?
        var indexer: SearchIndexer?
        var update = SearchIndexUpdate()
        let nimbus = QueryCase("Nimbus SearchIndexer", rows: rows, prepare: {
            file = try scratch.copy(source, as: "pending")
            indexer = try SearchIndexer(coordinator: try NoteStore.coordinator(file!))
        }, run: {
            update = try indexer!.indexPendingChanges()
        }, verify: {
            try check(update.indexed == rows && !update.rebuilt, "Nimbus indexed \(update.indexed) (rebuilt: \(update.rebuilt))")
            indexer = nil
            scratch.remove(file!)
        })

        let texts = (0..<rows).map { NoteStore.text($0) }
        let create = """
            CREATE VIRTUAL TABLE search USING fts5(ZDISPLAYNAME, ZCONTENT, ZENTITY UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')
            """
        let insert = "INSERT INTO search (rowid, ZDISPLAYNAME, ZCONTENT, ZENTITY) VALUES (?, ?, ?, 1)"
        var raw: RawConnection?
        let rawCase = QueryCase("raw SQLite C, FTS5 inserts", rows: rows, prepare: {
            file = scratch.newFile("fts")
            raw = try RawConnection(file!)
            try raw!.execute(create)
        }, run: {
            try raw!.execute("BEGIN")
            let statement = try raw!.prepare(insert)
            defer { sqlite3_finalize(statement) }
            for (i, text) in texts.enumerated() {
                sqlite3_bind_int64(statement, 1, Int64(i + 1))
                sqlite3_bind_text(statement, 2, "note \(i)", -1, RawConnection.transient)
                sqlite3_bind_text(statement, 3, text, -1, RawConnection.transient)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw raw!.error(insert) }
                sqlite3_reset(statement)
            }
            try raw!.execute("COMMIT")
        }, verify: {
            let count = try raw!.integer("SELECT count(*) FROM search")
            raw = nil
            scratch.remove(file!)
            try check(count == rows, "raw C indexed \(count)")
        })

        var queue: DatabaseQueue?
        let grdb = QueryCase("GRDB, FTS5 inserts", rows: rows, prepare: {
            file = scratch.newFile("fts")
            queue = try DatabaseQueue(path: file!.path)
            try queue!.write { db in try db.execute(sql: create) }
        }, run: {
            try queue!.write { db in
                let statement = try db.makeStatement(sql: insert)
                for (i, text) in texts.enumerated() { try statement.execute(arguments: [i + 1, "note \(i)", text]) }
            }
        }, verify: {
            let count = try queue!.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM search") ?? 0 }
            queue = nil
            scratch.remove(file!)
            try check(count == rows, "GRDB indexed \(count)")
        })
        return [nimbus, rawCase, grdb]
    }
}
