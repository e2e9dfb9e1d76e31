import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store migrate <store> --model <model> [--mapping <xcmappingmodel>…] [--dry-run]`.
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Migrate a store to a new model: lightweight steps, and mapping models where given.",
            discussion: """
                With an .xcdatamodeld, the store goes through every version from its own to the package's current one; \
                a step with a mapping model (matched by the versions Xcode recorded in it) runs that mapping, the others \
                are inferred. The new store is built beside the old one and replaces it only when every step succeeded.
                """)

        @Argument(help: "The store file, or a device folder (every store of the device, then its model).") var store: String
        @Option(help: "The new model: .xcdatamodeld, .xcdatamodel, or .json.") var model: String
        @Option(name: .customLong("mapping"), help: "An Xcode mapping model (.xcmappingmodel) for one step; repeat for several.")
        var mappings: [String] = []
        @Flag(help: "Print what would happen per entity, with row counts, then run the migration on a copy and report its failure, if any; the store is not changed.") var dryRun = false
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                if DeviceFolder.isDevice(store) {
                    // A device folder upgrades as an app update would: every store, then its model.
                    let quiet = json
                    let stores = try DeviceMigration.run(folder: store, model: model, mappings: try mappings.map { try MappingModel(contentsOf: URL(fileURLWithPath: $0)) },
                                                         dryRun: dryRun) { line in if !quiet { print(line) } }
                    if json { print(try ObjectJSON.serialize(["device": store, "stores": stores, "dryRun": dryRun])) }
                    return
                }
                let url = URL(fileURLWithPath: store)
                guard FileManager.default.fileExists(atPath: url.path) else { throw CLIError("no store at \(store)") }
                let mappingModels = try mappings.map { try MappingModel(contentsOf: URL(fileURLWithPath: $0)) }
                let plan = try Self.plan(storeAt: url, model: URL(fileURLWithPath: model), mappings: mappingModels)
                if dryRun {
                    let previews = try plan.preview(storeAt: url)
                    if json {
                        print(try ObjectJSON.serialize(previews.map(Self.json)))
                    } else if previews.isEmpty {
                        print("\(store) is already at the model's current version; nothing to do")
                    } else {
                        for (index, preview) in previews.enumerated() { Self.printPreview(preview, index: index, count: previews.count) }
                    }
                    // The real plan on a copy: its answer is the real run's answer.
                    do {
                        try plan.rehearseMigration(ofStoreAt: url)
                    } catch let error as NimbusError {
                        var failure = NimbusError(error.code, "a trial run on a copy of the store fails, so the migration would fail: \(error.message)", underlying: error)
                        failure.validationFailures = error.validationFailures
                        throw failure
                    }
                    if !json && !previews.isEmpty { print("a trial run on a copy of the store succeeded; the store was not changed") }
                    return
                }
                let quiet = json
                let ran = try plan.migrateStore(at: url) { progress in
                    // One line per step of each stage, on stderr, so stdout stays the result.
                    guard !quiet, progress.step != "migrating" || progress.fractionCompleted == (Double(progress.stageIndex) + 0.1) / Double(progress.stageCount) else { return }
                    FileHandle.standardError.write(Data("nimbus: stage \(progress.stageIndex + 1)/\(progress.stageCount) \(progress.stageLabel): \(progress.step) (\(Int(progress.fractionCompleted * 100))%)\n".utf8))
                }
                if json {
                    print(try ObjectJSON.serialize(["store": store, "stages": ran]))
                } else if ran.isEmpty {
                    print("\(store) is already at the model's current version; nothing to do")
                } else {
                    print("migrated \(store) through \(ran.count) stage(s): \(ran.joined(separator: ", "))")
                }
            }
        }

        /// Every version of a package from the store's own, or one step from the model the
        /// store keeps to the given one.
        static func plan(storeAt url: URL, model: URL, mappings: [MappingModel]) throws -> StagedMigrationPlan {
            if model.pathExtension == "xcdatamodeld" {
                let plan = try StagedMigrationPlan(versionsOf: model, mappings: mappings)
                do {
                    _ = try plan.stages(forStoreAt: url)
                    return plan
                } catch let error as NimbusError where error.code == .migrationFailed {
                    // The store's model is not one of the package's versions: one step to the current one.
                }
            }
            let destination = try ManagedObjectModel(contentsOf: model)
            let source = try ManagedObjectModel.storedModel(at: url)
            guard mappings.count <= 1 else {
                throw CLIError("\(mappings.count) mapping models given for a single step from the store's model to \(model.lastPathComponent); give one")
            }
            if let mapping = mappings.first {
                return try StagedMigrationPlan([.custom(from: source, to: destination, mapping: mapping, label: "store's model → \(model.lastPathComponent)")])
            }
            return try StagedMigrationPlan([.lightweight(from: source, to: destination, label: "store's model → \(model.lastPathComponent)")])
        }

        static func printPreview(_ preview: MigrationStagePreview, index: Int, count: Int) {
            Swift.print("stage \(index + 1)/\(count): \(preview.label) — \(preview.kind)")
            for entity in preview.entities {
                let rows = entity.rows.map { (entity.rowsAreUpperBound ? "up to " : "") + "\($0) row\($0 == 1 ? "" : "s")" } ?? "rows from the stage before"
                let kept = entity.migratedRows.map { ", \($0) kept" } ?? ""
                let line: String = switch (entity.source, entity.destination) {
                case let (source?, destination?) where source == destination: "  \(destination) (\(entity.action)): \(rows)\(kept)"
                case let (source?, destination?): "  \(source) → \(destination) (\(entity.action)): \(rows)\(kept)"
                case let (source?, nil): "  \(source) (\(entity.action)): \(rows) dropped"
                case let (nil, destination?): "  \(destination) (\(entity.action)): new, empty"
                case (nil, nil): "  (\(entity.action))"
                }
                Swift.print(line)
                for detail in entity.details { Swift.print("      \(detail)") }
            }
        }

        static func json(_ preview: MigrationStagePreview) -> [String: Any] {
            ["label": preview.label, "kind": preview.kind, "entities": preview.entities.map { entity -> [String: Any] in
                ["source": entity.source as Any? ?? NSNull(), "destination": entity.destination as Any? ?? NSNull(),
                 "action": entity.action, "rows": entity.rows as Any? ?? NSNull(),
                 "migratedRows": entity.migratedRows as Any? ?? NSNull(), "rowsAreUpperBound": entity.rowsAreUpperBound,
                 "details": entity.details]
            }]
        }
    }
}
