import Foundation

extension PersistentStoreDescription {
    /// Core Data option keys that map to a property of the description.
    static let coreDataOptions: [String: @Sendable (inout PersistentStoreDescription, String) throws -> Void] = [
        "NSReadOnlyPersistentStoreOption": { $0.isReadOnly = try boolean($1, "NSReadOnlyPersistentStoreOption") },
        "NSMigratePersistentStoresAutomaticallyOption": {
            $0.shouldMigrateStoreAutomatically = try boolean($1, "NSMigratePersistentStoresAutomaticallyOption")
        },
        "NSInferMappingModelAutomaticallyOption": {
            $0.shouldInferMappingModelAutomatically = try boolean($1, "NSInferMappingModelAutomaticallyOption")
        },
        "NSPersistentHistoryTrackingKey": { $0.persistentHistoryTracking = try boolean($1, "NSPersistentHistoryTrackingKey") },
        "NSPersistentStoreTimeoutOption": { description, text in
            guard let seconds = TimeInterval(text), seconds >= 0, seconds.isFinite else {
                throw NimbusError(.invalidArgument, "option NSPersistentStoreTimeoutOption is \(text); give a number of seconds, such as 5")
            }
            description.timeout = seconds
        },
    ]

    /// Options of Nimbus's own (not Core Data's); `NimbusCloudContainerOptions` carries the cloud options of a mirrored store.
    static let nimbusOptions: Set<String> = ["recordSQL", "NimbusCloudContainerOptions"]

    private static func boolean(_ text: String, _ key: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw NimbusError(.invalidArgument, "option \(key) is \(text); give true or false")
        }
    }

    /// The description with the Core Data keys of ``options`` applied to their properties.
    ///
    /// For example, `options["NSReadOnlyPersistentStoreOption"] = "true"` opens the store
    /// read-only, as ``isReadOnly`` does.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` naming every key that is
    ///   not supported (such as `NSSQLitePragmasOption`) or whose value is malformed; the
    ///   store is not opened then.
    func applyingOptions() throws -> PersistentStoreDescription {
        var result = self
        var unsupported: [String] = []
        for key in options.keys.sorted() {
            if let apply = Self.coreDataOptions[key] {
                try apply(&result, options[key]!)
            } else if !Self.nimbusOptions.contains(key) {
                unsupported.append(key)
            }
        }
        guard unsupported.isEmpty else {
            let supported = (Self.coreDataOptions.keys.sorted() + Self.nimbusOptions.sorted()).joined(separator: ", ")
            throw NimbusError(.invalidArgument, "store option(s) \(unsupported.joined(separator: ", ")) are not supported, so the store "
                + "was not opened; remove them or use the description's properties (supported option keys: \(supported))")
        }
        return result
    }
}
