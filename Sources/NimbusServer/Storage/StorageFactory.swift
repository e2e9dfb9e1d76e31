import Foundation
import Logging
import NimbusWire
import ServiceLifecycle

/// Opens the backend a configuration names: PostgreSQL when it has a URL, else the SQLite
/// file `nimbus.sqlite` in the data folder.
package enum StorageFactory {
    package struct Backend: Sendable {
        package var storage: any SyncStorage
        /// Services that must run while the storage is used (the PostgreSQL pool and listener).
        package var services: [any Service]
    }

    package static func make(configuration: ServerConfiguration, logger: Logger) throws -> Backend {
        if let url = configuration.postgresURL {
            let storage = try PostgresStorage(
                url: url, logger: logger, heartbeatInterval: configuration.postgresHeartbeatInterval,
                replicaURL: configuration.postgresReplicaURL)
            return Backend(storage: storage, services: storage.services)
        }
        if configuration.postgresReplicaURL != nil {
            throw WireError(.invalidArguments, "A PostgreSQL replica needs the primary's URL as well (--postgres).")
        }
        try DataDirectory.prepare(configuration.dataDirectory)
        let storage = try SQLiteStorage(path: configuration.dataDirectory + "/nimbus.sqlite")
        try DataDirectory.restrictFiles(in: configuration.dataDirectory)
        return Backend(storage: storage, services: [])
    }

    /// Runs `body` with the storage open and its services running, for command-line tools.
    package static func withStorage<T: Sendable>(
        configuration: ServerConfiguration, logger: Logger, _ body: @escaping @Sendable (any SyncStorage) async throws -> T
    ) async throws -> T {
        let backend = try make(configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            for service in backend.services {
                group.addTask {
                    try await service.run()
                    return nil
                }
            }
            group.addTask {
                try await backend.storage.migrate()
                return try await body(backend.storage)
            }
            while let result = try await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }
}
