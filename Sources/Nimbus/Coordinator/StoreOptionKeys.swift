// Core Data's store option keys, under Core Data's names, so a stack set up with
// `description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)` ports by
// renaming types only. What each key does in Nimbus is in `PersistentStoreDescription+Options.swift`.
// swiftlint:disable identifier_name

/// The store type of a SQLite file, for ``PersistentStoreCoordinator/addPersistentStore(ofType:configurationName:at:options:)``.
public let NSSQLiteStoreType = "SQLite"
/// The store type of an in-memory store.
public let NSInMemoryStoreType = "InMemory"

/// Opens the store read-only (``PersistentStoreDescription/isReadOnly``).
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Seconds to wait for a lock (``PersistentStoreDescription/timeout``).
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// SQLite pragmas: `journal_mode` (WAL or DELETE) sets ``PersistentStoreDescription/journalMode``;
/// other pragmas are accepted and reported once as a warning.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Accepted; Nimbus does not run `ANALYZE` when opening (reported once as a warning).
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// Accepted; Nimbus does not vacuum when opening (reported once as a warning).
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// Accepted; a store's model is always checked (reported once as a warning).
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Migrates an older store when added (``PersistentStoreDescription/shouldMigrateStoreAutomatically``).
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Infers the mapping of a migration (``PersistentStoreDescription/shouldInferMappingModelAutomatically``).
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Records persistent history (``PersistentStoreDescription/persistentHistoryTracking``).
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
/// Posts ``PersistentStoreCoordinator/remoteChangeNotification`` when another coordinator or
/// process commits (``PersistentStoreDescription/postsRemoteChangeNotifications``).
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationPostOptionKey"
/// Most readers open at once (``PersistentStoreDescription/maximumConnectionPoolSize``).
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"
/// Accepted; Linux has no data-protection classes (reported once as a warning).
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// Accepted; give a ``StagedMigrationPlan`` as ``PersistentStoreDescription/stagedMigrationPlan`` instead.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"
/// Accepted; migrations run in full when the store is added (reported once as a warning).
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"
/// Accepted; only meaningful to `destroyPersistentStore` on Apple's platforms (reported once).
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"
/// Accepted; Nimbus's files do not depend on an OS version (reported once as a warning).
public let NSPersistentStoreOSCompatibility = "NSPersistentStoreOSCompatibility"
/// Accepted; Core Spotlight does not exist on Linux (reported once as a warning).
public let NSCoreDataCoreSpotlightExporter = "NSCoreDataCoreSpotlightExporter"
/// Accepted; Nimbus has no binary store (reported once as a warning).
public let NSBinaryStoreSecureDecodingClasses = "NSBinaryStoreSecureDecodingClasses"
/// Accepted; Nimbus has no binary store (reported once as a warning).
public let NSBinaryStoreInsecureDecodingCompatibilityOption = "NSBinaryStoreInsecureDecodingCompatibilityOption"
/// Accepted; Nimbus has no XML store (reported once as a warning).
public let NSValidateXMLStoreOption = "NSValidateXMLStoreOption"
/// Accepted; external records (Spotlight on macOS) are not written (reported once as a warning).
public let NSExternalRecordsDirectoryOption = "NSExternalRecordsDirectoryOption"
/// Accepted; external records are not written (reported once as a warning).
public let NSExternalRecordExtensionOption = "NSExternalRecordExtensionOption"
/// Accepted; external records are not written (reported once as a warning).
public let NSExternalRecordsFileFormatOption = "NSExternalRecordsFileFormatOption"
/// Accepted; iCloud ubiquitous stores are replaced by mirroring (reported once as a warning).
public let NSPersistentStoreUbiquitousContentNameKey = "NSPersistentStoreUbiquitousContentNameKey"
/// Accepted; iCloud ubiquitous stores are replaced by mirroring (reported once as a warning).
public let NSPersistentStoreUbiquitousContentURLKey = "NSPersistentStoreUbiquitousContentURLKey"
/// Accepted; iCloud ubiquitous stores are replaced by mirroring (reported once as a warning).
public let NSPersistentStoreUbiquitousPeerTokenOption = "NSPersistentStoreUbiquitousPeerTokenOption"
/// Accepted; iCloud ubiquitous stores are replaced by mirroring (reported once as a warning).
public let NSPersistentStoreRebuildFromUbiquitousContentOption = "NSPersistentStoreRebuildFromUbiquitousContentOption"
/// Accepted; iCloud ubiquitous stores are replaced by mirroring (reported once as a warning).
public let NSPersistentStoreRemoveUbiquitousMetadataOption = "NSPersistentStoreRemoveUbiquitousMetadataOption"
/// Accepted; iCloud ubiquitous stores are replaced by mirroring (reported once as a warning).
public let NSPersistentStoreUbiquitousContainerIdentifierKey = "NSPersistentStoreUbiquitousContainerIdentifierKey"
