import Foundation

extension StagedMigrationPlan {
    /// A plan through the versions of an Xcode model package, in Xcode's version order up to
    /// its current version: a step between two versions is a custom stage when one of
    /// `mappings` was drawn between them (Xcode records the two versions in the mapping
    /// model), and a lightweight stage otherwise.
    ///
    /// For example:
    ///
    /// ```swift
    /// let plan = try StagedMigrationPlan(versionsOf: URL(fileURLWithPath: "Notes.xcdatamodeld"),
    ///                                    mappings: [try MappingModel(contentsOf: mapping2to3)])
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` for a package with fewer than
    ///   two readable versions or an unreadable current version (an older version that cannot
    ///   be read is left out: see ``unreadableVersions``); ``NimbusError/Code-swift.struct/invalidArgument``
    ///   for a mapping that does not join two consecutive versions.
    public init(versionsOf package: URL, mappings: [MappingModel] = [], handlers: [String: (willMigrate: MigrationStage.Handler?, didMigrate: MigrationStage.Handler?)] = [:]) throws {
        let names = try XcodeModelLocation.versions(in: package)
        let current = try XcodeModelLocation.currentVersion(in: package)
        let versions = Array(names.prefix { $0 != current }) + [current]
        guard versions.count >= 2 else {
            throw NimbusError(.invalidModel, "\(package.path) has one version up to its current one; a plan needs two")
        }
        // A version that cannot be read (an Xcode 3 model kept as a binary `elements`
        // archive) blocks only migrations from it: the versions either side are joined by an
        // inferred stage, and a store written with it is told why (``stages(forStoreAt:)``).
        var models: [ManagedObjectModel] = [], labels: [String] = [], unreadable: [String: String] = [:]
        for version in versions {
            let label = String(version.dropLast(".xcdatamodel".count))
            do {
                models.append(try ManagedObjectModel(contentsOf: package.appendingPathComponent(version)))
                labels.append(label)
            } catch let error as NimbusError where version != current {
                unreadable[label] = error.message
            }
        }
        guard models.count >= 2 else {
            throw NimbusError(.invalidModel, "\(package.path) has one readable version up to its current one; a plan needs two"
                              + (unreadable.isEmpty ? "" : " (unreadable: " + unreadable.keys.sorted().joined(separator: ", ") + ")"))
        }
        var unused = mappings.filter { mapping in
            !([mapping.sourceModelVersion, mapping.destinationModelVersion].contains { $0.map { unreadable[$0] != nil } == true })
        }
        var stages: [MigrationStage] = []
        for i in 0..<(models.count - 1) {
            let label = "\(labels[i]) → \(labels[i + 1])"
            let handler = handlers[labels[i + 1]]
            if let index = unused.firstIndex(where: { $0.sourceModelVersion == labels[i] && $0.destinationModelVersion == labels[i + 1] }) {
                stages.append(.custom(from: models[i], to: models[i + 1], mapping: unused.remove(at: index), label: label,
                                      willMigrate: handler?.willMigrate, didMigrate: handler?.didMigrate))
            } else if handler != nil {
                stages.append(.custom(from: models[i], to: models[i + 1], label: label, willMigrate: handler?.willMigrate, didMigrate: handler?.didMigrate))
            } else {
                stages.append(.lightweight(from: models[i], to: models[i + 1], label: label))
            }
        }
        if let stray = unused.first {
            throw NimbusError(.invalidArgument, "the mapping model \(stray.source ?? "") maps \(stray.sourceModelVersion ?? "?") → \(stray.destinationModelVersion ?? "?"), which are not two consecutive versions of \(package.lastPathComponent) (\(labels.joined(separator: ", ")))")
        }
        try self.init(stages)
        unreadableVersions = unreadable
    }
}
