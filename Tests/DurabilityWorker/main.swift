import Foundation
import Nimbus
import NimbusTesting

// Saves in a loop until killed, printing "saved N" after each save returns.
// Save N inserts batch N with five items (one-to-many with inverse), sets the counter to N,
// and, when N is a multiple of 4, deletes batch N-2 (its items cascade).
// Usage: DurabilityWorker <store path>
//
// With `migrate` first (DurabilityWorker migrate <store path> <fixtures folder>): runs the
// Notebook app's staged migration once, printing each step.
//
// With `search` first (DurabilityWorker search <store path>): save N inserts note N (text
// "note N common") and, when N is a multiple of 3, deletes note N-1; after each save a search
// indexer indexes history one transaction per write, printing "indexed N".

/// Writes a line straight to the pipe (no buffering: the parent must see every line).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "search" {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try DurabilityModel.makeSearch())
    var description = PersistentStoreDescription(url: URL(fileURLWithPath: CommandLine.arguments[2]))
    description.persistentHistoryTracking = true
    try coordinator.addPersistentStore(with: description)
    let indexer = try SearchIndexer(coordinator: coordinator, batchSize: 1)
    try indexer.indexPendingChanges()   // the first run builds the index; "ready" comes after
    let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    try context.performAndWait {
        var n = try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) + 1000
        say("ready")
        while true {
            n += 1
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue(Int64(n), forKey: "number")
            note.setValue("note\(n) common", forKey: "text")
            if n % 3 == 0 {
                var request = FetchRequest<ManagedObject>(entityName: "Note")
                request.predicate = .comparison(.init(.keyPath(["number"]), .equal, .constant(.integer(Int64(n - 1)))))
                for old in try context.fetch(request) { context.delete(old) }
            }
            try context.save()
            context.reset()
            try indexer.indexPendingChanges()
            say("indexed \(n)")
        }
    }
}
if CommandLine.arguments.count > 3, CommandLine.arguments[1] == "migrate" {
    // DurabilityWorker migrate <store path> <fixtures folder>: runs the Notebook app's staged
    // migration, printing "step <stage> <step>" as it goes and "migrated" at the end.
    let plan = try NotebookMigration.plan(fixtures: URL(fileURLWithPath: CommandLine.arguments[3]))
    say("ready")
    try plan.migrateStore(at: URL(fileURLWithPath: CommandLine.arguments[2])) { progress in say("step \(progress.stageIndex) \(progress.step)") }
    say("migrated")
    exit(0)
}
let model = try DurabilityModel.make()
let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
var description = PersistentStoreDescription(url: URL(fileURLWithPath: CommandLine.arguments[1]))
description.persistentHistoryTracking = true
try coordinator.addPersistentStore(with: description)
let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
context.transactionAuthor = "worker"
try context.performAndWait {
    var counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first
        ?? context.insertNewObject(forEntityName: "Counter")
    var n = (counter.value(forKey: "value") as? Int64) ?? 0
    say("ready \(n)")
    while true {
        n += 1
        let batch = try context.insertNewObject(forEntityName: "Batch")
        batch.setValue(n, forKey: "number")
        for i in 0..<5 {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue(n * 10 + Int64(i), forKey: "code")
            item.setValue(batch, forKey: "batch")
        }
        counter.setValue(n, forKey: "value")
        if n % 4 == 0 {
            var request = FetchRequest<ManagedObject>(entityName: "Batch")
            request.predicate = .comparison(.init(.keyPath(["number"]), .equal, .constant(.integer(n - 2))))
            for old in try context.fetch(request) { context.delete(old) }
        }
        try context.save()
        say("saved \(n)")
        let counterID = counter.objectID
        context.reset()
        counter = try context.existingObject(with: counterID)
    }
}
