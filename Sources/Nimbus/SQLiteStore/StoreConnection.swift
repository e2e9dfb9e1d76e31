import Foundation
import GRDB

/// How every connection Nimbus opens to a store file is configured.
///
/// Each one waits for another connection's lock (a writer, a checkpoint when a process
/// closes its store, the recovery after a process was killed) up to a timeout instead of
/// failing at once with "database is locked": GRDB's default is to fail at once, and a
/// store is often open in several processes (an app, `nimbus` commands, a sync).
package enum StoreConnection {
    /// How long a connection waits for a lock when its store description names no timeout.
    package static let defaultTimeout: TimeInterval = 5

    /// A configuration that waits `timeout` for locks, read-only when asked.
    package static func configuration(readOnly: Bool = false, timeout: TimeInterval = defaultTimeout) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(timeout)
        configuration.readonly = readOnly
        return configuration
    }

    /// A serial connection to the file at `path` that waits for locks.
    package static func queue(path: String, readOnly: Bool = false, timeout: TimeInterval = defaultTimeout) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: configuration(readOnly: readOnly, timeout: timeout))
    }
}
