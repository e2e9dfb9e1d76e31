import Foundation

extension PersistentStoreDescription {
    /// Core Data option keys that map to a property of the description.
    static let coreDataOptions: [String: @Sendable (inout PersistentStoreDescription, String, inout [StoreOptionWarning]) throws -> Void] = [
        NSReadOnlyPersistentStoreOption: { description, text, _ in description.isReadOnly = try boolean(text, NSReadOnlyPersistentStoreOption) },
        NSMigratePersistentStoresAutomaticallyOption: { description, text, _ in
            description.shouldMigrateStoreAutomatically = try boolean(text, NSMigratePersistentStoresAutomaticallyOption)
        },
        NSInferMappingModelAutomaticallyOption: { description, text, _ in
            description.shouldInferMappingModelAutomatically = try boolean(text, NSInferMappingModelAutomaticallyOption)
        },
        NSPersistentHistoryTrackingKey: { description, text, _ in
            description.persistentHistoryTracking = try boolean(text, NSPersistentHistoryTrackingKey)
        },
        NSPersistentStoreRemoteChangeNotificationPostOptionKey: { description, text, _ in
            description.postsRemoteChangeNotifications = try boolean(text, NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        },
        NSPersistentStoreTimeoutOption: { description, text, _ in
            guard let seconds = TimeInterval(text), seconds >= 0, seconds.isFinite else {
                throw NimbusError(.invalidArgument, "option NSPersistentStoreTimeoutOption is \(text); give a number of seconds, such as 5")
            }
            description.timeout = seconds
        },
        NSPersistentStoreConnectionPoolMaxSizeKey: { description, text, _ in
            guard let size = Int(text), size >= 1 else {
                throw NimbusError(.invalidArgument, "option NSPersistentStoreConnectionPoolMaxSizeKey is \(text); give a whole number of connections, 1 or more")
            }
            description.maximumConnectionPoolSize = size
        },
        NSSQLitePragmasOption: { description, text, warnings in try applyPragmas(text, to: &description, warnings: &warnings) },
    ]

    /// Core Data option keys with no Nimbus counterpart: accepted, and reported once as a warning saying why.
    static let acceptedOptions: [String: String] = {
        var reasons: [String: String] = [
            NSSQLiteAnalyzeOption: "Nimbus does not run ANALYZE when a store is added",
            NSSQLiteManualVacuumOption: "Nimbus does not vacuum when a store is added",
            NSIgnorePersistentStoreVersioningOption: "Nimbus always checks a store's model",
            NSPersistentStoreFileProtectionKey: "Linux has no data-protection classes",
            NSPersistentStoreStagedMigrationManagerOptionKey: "set the description's stagedMigrationPlan instead",
            NSPersistentStoreDeferredLightweightMigrationOptionKey: "Nimbus migrates a store in full when it is added",
            NSPersistentStoreForceDestroyOption: "it only concerns destroying a store",
            NSPersistentStoreOSCompatibility: "Nimbus's store files do not depend on an OS version",
            NSCoreDataCoreSpotlightExporter: "Core Spotlight does not exist on Linux (see Nimbus's search index)",
            NSBinaryStoreSecureDecodingClasses: "Nimbus has no binary store type",
            NSBinaryStoreInsecureDecodingCompatibilityOption: "Nimbus has no binary store type",
            NSValidateXMLStoreOption: "Nimbus has no XML store type",
            NSExternalRecordsDirectoryOption: "Nimbus writes no external records",
            NSExternalRecordExtensionOption: "Nimbus writes no external records",
            NSExternalRecordsFileFormatOption: "Nimbus writes no external records",
        ]
        for key in [NSPersistentStoreUbiquitousContentNameKey, NSPersistentStoreUbiquitousContentURLKey,
                    NSPersistentStoreUbiquitousPeerTokenOption, NSPersistentStoreRebuildFromUbiquitousContentOption,
                    NSPersistentStoreRemoveUbiquitousMetadataOption, NSPersistentStoreUbiquitousContainerIdentifierKey] {
            reasons[key] = "iCloud ubiquitous stores are replaced by mirroring (NimbusCloud)"
        }
        return reasons
    }()

    /// Options of Nimbus's own (not Core Data's); `NimbusCloudContainerOptions` carries the cloud options of a mirrored store.
    static let nimbusOptions: Set<String> = ["recordSQL", "NimbusCloudContainerOptions"]

    private static func boolean(_ text: String, _ key: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw NimbusError(.invalidArgument, "option \(key) is \(text); give true or false")
        }
    }

    /// `journal_mode` sets ``journalMode``; every other pragma is reported.
    private static func applyPragmas(_ text: String, to description: inout PersistentStoreDescription, warnings: inout [StoreOptionWarning]) throws {
        for pair in text.split(separator: ";") where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else {
                throw NimbusError(.invalidArgument, "option NSSQLitePragmasOption has '\(pair)'; give name=value pairs separated by ';', such as journal_mode=DELETE")
            }
            let name = parts[0].lowercased()
            if name == "journal_mode" {
                guard let mode = JournalMode(rawValue: parts[1].uppercased()) else {
                    throw NimbusError(.invalidArgument, "journal_mode \(parts[1]) is not supported; give WAL or DELETE")
                }
                description.journalMode = mode
            } else {
                warnings.append(StoreOptionWarning(key: "\(NSSQLitePragmasOption).\(name)",
                                                   message: "the SQLite pragma \(name) is not applied: Nimbus sets its connections' pragmas itself"))
            }
        }
    }

    /// The description with the Core Data keys of ``options`` applied to their properties,
    /// and a warning for every key accepted without effect or not known at all.
    ///
    /// For example, `options[NSReadOnlyPersistentStoreOption] = "true"` opens the store
    /// read-only, as ``isReadOnly`` does; `options["NSPersistentHistoryTrackingkey"]` (a typo)
    /// is a warning that suggests `NSPersistentHistoryTrackingKey`.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` when a known key's value is
    ///   malformed; the store is not opened then.
    func resolvingOptions() throws -> (description: PersistentStoreDescription, warnings: [StoreOptionWarning]) {
        var result = self
        var warnings: [StoreOptionWarning] = []
        for key in options.keys.sorted() {
            if let apply = Self.coreDataOptions[key] {
                try apply(&result, options[key]!, &warnings)
            } else if let reason = Self.acceptedOptions[key] {
                warnings.append(StoreOptionWarning(key: key, message: "the store option \(key) is accepted but has no effect: \(reason)"))
            } else if !Self.nimbusOptions.contains(key) {
                var message = "the store option \(key) is not a Core Data or Nimbus option and was ignored"
                if let near = Self.nearestKey(to: key) { message += "; did you mean \(near)?" }
                warnings.append(StoreOptionWarning(key: key, message: message))
            }
        }
        return (result, warnings)
    }

    /// The known key closest to a misspelt one (at most a few edits away).
    static func nearestKey(to key: String) -> String? {
        let known = Array(coreDataOptions.keys) + Array(acceptedOptions.keys) + Array(nimbusOptions)
        let scored = known.map { ($0, editDistance($0.lowercased(), key.lowercased())) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let (best, distance) = scored, distance <= max(2, key.count / 6) else { return nil }
        return best
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
