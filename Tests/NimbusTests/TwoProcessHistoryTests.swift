import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Two processes write one store; each sees the other's changes by merging history.
@Suite("History across processes")
struct TwoProcessHistoryTests {
    @Test("a context merges what another process saved, read from persistent history")
    func mergeAcrossProcesses() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Shared.sqlite")
        let model = try DurabilityModel.make()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.persistentHistoryTracking = true
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        context.transactionAuthor = "app"
        let holder = ObjectHolder()
        let start = try context.performAndWait { () throws -> PersistentHistoryToken? in
            let counter = try context.insertNewObject(forEntityName: "Counter")
            counter.setValue(0, forKey: "value")
            try context.save()
            holder.object = counter
            return try coordinator.currentPersistentHistoryToken()
        }

        // The other process saves in a loop while this one saves too.
        let process = Process()
        process.executableURL = DurabilityTests.workerURL
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let reader = LineReader(pipe.fileHandleForReading)
        _ = reader.nextLine()
        try context.performAndWait { () throws in
            for i in 0..<5 {
                let batch = try context.insertNewObject(forEntityName: "Batch")
                batch.setValue(Int64(1_000_000 + i), forKey: "number")
                try context.save()
            }
        }
        var acknowledged: Int64 = 0
        while acknowledged < 5, let line = reader.nextLine() {
            if line.hasPrefix("saved ") { acknowledged = Int64(line.dropFirst(6)) ?? 0 }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        try context.performAndWait { () throws in
            let counter = try #require(holder.object)
            #expect(counter.value(forKey: "value") as? Int64 == 0, "not merged yet")
            var request = PersistentHistoryChangeRequest.fetchHistory(after: start)
            request.transactionPredicate = try QueryPredicate(format: "author == 'worker'")
            let theirs = try context.execute(request).transactions
            #expect(theirs.count >= 5)
            #expect(Set(theirs.compactMap(\.processID)).count == 1)
            #expect(theirs.first?.processID != String(ProcessInfo.processInfo.processIdentifier))
            context.mergeChanges(fromHistory: theirs)
            #expect((counter.value(forKey: "value") as? Int64 ?? 0) >= 5)
            let authors = Set(try context.execute(.fetchHistory(after: start)).transactions.compactMap(\.author))
            #expect(authors == ["app", "worker"])
        }
    }
}
