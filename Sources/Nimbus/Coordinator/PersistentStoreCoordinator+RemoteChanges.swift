import Foundation
import Logging
import GRDB

// swiftlint:disable identifier_name
/// The user-info key of a remote change's ``PersistentHistoryToken`` (nil without history tracking).
public let NSPersistentHistoryTokenKey = "historyToken"
/// The user-info key of a remote change's store identifier (a UUID string).
public let NSStoreUUIDKey = "NSStoreUUID"
/// The user-info key of a remote change's store URL.
public let NSPersistentStoreURLKey = "storeURL"
// swiftlint:enable identifier_name

extension Notification.Name {
    /// Core Data's name for ``PersistentStoreCoordinator/remoteChangeNotification``.
    public static let NSPersistentStoreRemoteChange = PersistentStoreCoordinator.remoteChangeNotification
}

extension PersistentStoreCoordinator {
    /// Posted (object: the coordinator) when another coordinator or process commits to a store
    /// added with ``PersistentStoreDescription/postsRemoteChangeNotifications`` (the option
    /// ``NSPersistentStoreRemoteChangeNotificationPostOptionKey``). `userInfo` holds
    /// ``NSStoreUUIDKey``, ``NSPersistentStoreURLKey`` and, when the store tracks history,
    /// ``NSPersistentHistoryTokenKey`` (the newest transaction), as Core Data posts it.
    ///
    /// For example:
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { note in
    ///     let token = note.userInfo?[NSPersistentHistoryTokenKey] as? PersistentHistoryToken
    ///     // fetch the history after the last token merged
    /// }
    /// ```
    ///
    /// Commits are noticed by polling SQLite's `data_version` every 50 ms, so one arrives
    /// within about that long; several commits in one interval post one notification.
    public static let remoteChangeNotification = Notification.Name("NSPersistentStoreRemoteChangeNotification")

    /// One remote change, as ``remoteChanges()`` delivers it.
    public struct RemoteChange: Sendable, Hashable {
        /// The store changed.
        public var storeIdentifier: String
        /// Its location.
        public var storeURL: URL?
        /// The newest transaction of its history (nil when it does not track history).
        public var historyToken: PersistentHistoryToken?
    }

    /// The coordinator's remote change notifications as an asynchronous sequence.
    ///
    /// ```swift
    /// for await change in coordinator.remoteChanges() {
    ///     let history = try context.execute(.fetchHistory(after: lastToken))
    ///     lastToken = change.historyToken
    /// }
    /// ```
    public func remoteChanges() -> AsyncStream<RemoteChange> {
        let (stream, continuation) = AsyncStream<RemoteChange>.makeStream()
        let observer = NotificationCenter.default.addObserver(forName: Self.remoteChangeNotification, object: self, queue: nil) { note in
            if let change = note.userInfo?[Self.remoteChangeUserInfoKey] as? RemoteChange { continuation.yield(change) }
        }
        let box = RemoteObserverBox(observer)
        continuation.onTermination = { _ in NotificationCenter.default.removeObserver(box.observer) }
        return stream
    }

    static let remoteChangeUserInfoKey = "NimbusRemoteChange"

    static let remoteChangeLogger = Logger(label: "nimbus.remote-changes")

    /// How often a watched store's `data_version` is read.
    static let remoteChangePollInterval: Duration = .milliseconds(50)

    /// Starts watching a store for commits of other connections, when its description asks.
    /// The watch ends when the store is removed or the coordinator goes.
    func watchRemoteChanges(of store: PersistentStore) {
        guard store.storeDescription.postsRemoteChangeNotifications, store.type == .sqlite,
              let first = try? store.database.remoteState().version else { return }
        Task.detached { [weak self, weak store] in
            var last = first
            var failures = 0
            while !Task.isCancelled {
                // A read that fails (the file busy or briefly unreadable) is tried again, less
                // often while it keeps failing; the watch ends only with the store or the coordinator.
                try? await Task.sleep(for: Self.remoteChangePollInterval * (1 << min(failures, 6)))
                guard let coordinator = self, let store, coordinator.persistentStores.contains(where: { $0 === store }) else { return }
                let state: (version: Int64, token: PersistentHistoryToken?)
                do {
                    state = try store.database.remoteState()
                    if failures > 0 { Self.remoteChangeLogger.notice("remote changes of \(store.identifier): reading data_version works again") }
                    failures = 0
                } catch {
                    if failures == 0 { Self.remoteChangeLogger.warning("remote changes of \(store.identifier): reading data_version failed (\(error)); trying again") }
                    failures += 1
                    continue
                }
                guard state.version != last else { continue }
                last = state.version
                coordinator.postRemoteChange(RemoteChange(storeIdentifier: store.identifier, storeURL: store.url, historyToken: state.token))
            }
        }
    }

    func postRemoteChange(_ change: RemoteChange) {
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: change.storeIdentifier, Self.remoteChangeUserInfoKey: change]
        info[NSPersistentStoreURLKey] = change.storeURL
        info[NSPersistentHistoryTokenKey] = change.historyToken
        NotificationCenter.default.post(name: Self.remoteChangeNotification, object: self, userInfo: info)
    }
}

extension SQLiteDatabase {
    /// The writer connection's `data_version` (it changes only when another connection
    /// commits, so this coordinator's own saves do not count) and the newest history token.
    func remoteState() throws -> (version: Int64, token: PersistentHistoryToken?) {
        try gate.enter(identifier)
        defer { gate.leave() }
        return try writer.writeWithoutTransaction { db in
            let version = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
            let token = try HistoryStore.isPrepared(db)
                ? PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: HistoryStore.lastTransaction(db)) : nil
            return (version, token)
        }
    }
}

private final class RemoteObserverBox: @unchecked Sendable {
    let observer: any NSObjectProtocol
    init(_ observer: any NSObjectProtocol) { self.observer = observer }
}
