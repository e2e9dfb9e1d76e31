import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store import-coredata <apple.sqlite> --model M <nimbus.sqlite> [--with-history]
    /// [--with-cloud-metadata] [--json]`.
    struct ImportCoreData: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-coredata",
            abstract: "Copy a store Apple's Core Data wrote into a new Nimbus store of the same model.",
            discussion: """
                The Apple store is read without changing a byte of it (its -wal too). Every object keeps its \
                entity and primary key; external-storage files are copied. The model must be the version the \
                store was written with: otherwise the error names each entity, column and type that differs. \
                Progress goes to standard error, one line per table.
                Example: nimbus store import-coredata App.sqlite --model App.xcdatamodeld app-nimbus.sqlite
                """)

        @Argument(help: "The store Apple's Core Data wrote.") var source: String
        @Option(help: "The app's model: .xcdatamodeld (its current version), .xcdatamodel or .json.") var model: String
        @Argument(help: "The Nimbus store to create (must not exist).") var destination: String
        @Flag(help: "Record persistent history in the new store.") var withHistory = false
        @Flag(help: "Carry CloudKit mirroring metadata (ANSCK*) over (not supported yet: reported).") var withCloudMetadata = false
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                guard FileManager.default.fileExists(atPath: source) else { throw CLIError("no store at \(source)") }
                let managedObjectModel = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
                let terminal = ImportProgress()
                let summary = try CoreDataImport.run(
                    from: URL(fileURLWithPath: source), model: managedObjectModel, to: URL(fileURLWithPath: destination),
                    withHistory: withHistory, withCloudMetadata: withCloudMetadata
                ) { progress in
                    let line = "copied \(progress.tablesCopied)/\(progress.tableCount) tables (\(progress.table): \(progress.rows) rows)"
                    if terminal.isTerminal { terminal.show(line) } else { FileHandle.standardError.write(Data((line + "\n").utf8)) }
                }
                terminal.clear()
                for note in summary.notes { FileHandle.standardError.write(Data("nimbus: note: \(note)\n".utf8)) }
                let objects = summary.objectsByEntity.values.reduce(0, +)
                if json {
                    print(try ObjectJSON.serialize([
                        "source": source, "destination": destination, "objects": objects,
                        "objectsByEntity": summary.objectsByEntity, "joinRows": summary.joinRows,
                        "externalFiles": summary.externalFiles, "persistenceFrameworkVersion": summary.frameworkVersion ?? NSNull(),
                        "notes": summary.notes,
                    ]))
                } else {
                    print("imported \(objects) object(s) of \(summary.objectsByEntity.count) entities, \(summary.joinRows) relationship row(s) and \(summary.externalFiles) external file(s) from \(source) (Core Data \(summary.frameworkVersion ?? "unknown")) into \(destination)")
                }
            }
        }
    }
}
