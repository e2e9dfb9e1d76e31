import Foundation
import GRDB
import Testing
import NimbusTesting

/// A child process saves in a loop and is killed with SIGKILL at random moments; after each
/// kill the store must open, pass `PRAGMA integrity_check`, keep every relationship's
/// inverse, and hold exactly the saves that returned (the one in flight whole or absent).
@Suite("Durability")
struct DurabilityTests {
    static var workerURL: URL {
        let directory = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()]
        return candidates.map { $0.appendingPathComponent("DurabilityWorker") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? directory.appendingPathComponent("DurabilityWorker")
    }

    /// The batches alive after save `n`: batch k exists unless a later save (a multiple of 4)
    /// deleted it.
    static func expectedBatches(after n: Int64) -> Set<Int64> {
        guard n > 0 else { return [] }
        var alive = Set<Int64>(1...n)
        for save in stride(from: 4, through: n, by: 4) { alive.remove(save - 2) }
        return alive
    }

    @Test("SIGKILL at 50 random moments never loses or tears a saved transaction")
    func killedWhileSaving() throws {
        let folder = try TemporaryDirectory()
        let store = folder.file("Durable.sqlite")
        var generator = SystemRandomNumberGenerator()
        var totalAcknowledged = 0
        for round in 0..<50 {
            let process = Process()
            process.executableURL = Self.workerURL
            process.arguments = [store.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            // Wait for the worker to be ready, then let it save for a random while.
            let reader = LineReader(pipe.fileHandleForReading)
            let ready = try #require(reader.nextLine(), "round \(round): the worker printed nothing")
            #expect(ready.hasPrefix("ready"))
            usleep(UInt32.random(in: 2_000...40_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let lines = reader.remainingLines()
            let acknowledged = lines.compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil }
            let start = Int64(ready.dropFirst(6)) ?? 0
            let lastAcknowledged = acknowledged.last ?? start
            totalAcknowledged += acknowledged.count

            let queue = try DatabaseQueue(path: store.path)
            try queue.read { db in
                #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
                let counter = try Int64.fetchOne(db, sql: "SELECT ZVALUE FROM ZCOUNTER") ?? 0
                #expect(counter == lastAcknowledged || counter == lastAcknowledged + 1,
                        "round \(round): counter \(counter), last acknowledged save \(lastAcknowledged)")
                let batches = Set(try Int64.fetchAll(db, sql: "SELECT ZNUMBER FROM ZBATCH"))
                #expect(batches == Self.expectedBatches(after: counter), "round \(round): batches after save \(counter)")
                // Every batch has its five items and every item points at a live batch.
                let itemCounts = try Row.fetchAll(db, sql: "SELECT b.ZNUMBER AS n, count(i.Z_PK) AS c FROM ZBATCH b LEFT JOIN ZITEM i ON i.ZBATCH = b.Z_PK GROUP BY b.Z_PK")
                #expect(itemCounts.allSatisfy { ($0["c"] as Int) == 5 })
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM WHERE ZBATCH IS NULL OR ZBATCH NOT IN (SELECT Z_PK FROM ZBATCH)") == 0)
                // History agrees with the data: one transaction per save, each with its six
                // inserts (a batch and five items).
                let transactions = try Int64.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION") ?? -1
                #expect(transactions == counter, "round \(round): \(transactions) transactions for \(counter) saves")
                let batchInserts = try Int64.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE WHERE ZCHANGETYPE = 0 AND ZENTITY = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Batch')") ?? -1
                #expect(batchInserts == counter)
            }
            try queue.close()
        }
        #expect(totalAcknowledged > 50, "the worker should have completed saves across the rounds")
    }
}

/// Reads lines from a pipe.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    func remainingLines() -> [String] {
        buffer.append(handle.readDataToEndOfFile())
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
