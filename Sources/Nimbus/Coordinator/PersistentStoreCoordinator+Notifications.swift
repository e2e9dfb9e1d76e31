import Foundation

extension PersistentStoreCoordinator {
    /// Posted (object: the coordinator) before stores are removed, moved, replaced or
    /// destroyed: `userInfo[storesUserInfoKey]` holds them. The same user-info key as
    /// NimbusCloud's account-switch notifications.
    public static let storesWillChangeNotification = Notification.Name("NimbusCoordinatorStoresWillChange")
    /// Posted (object: the coordinator) after stores were added, removed, moved, replaced or
    /// destroyed: `userInfo[addedStoresKey]` and `userInfo[removedStoresKey]` hold them and
    /// `userInfo[storesUserInfoKey]` the coordinator's stores now.
    public static let storesDidChangeNotification = Notification.Name("NimbusCoordinatorStoresDidChange")
    /// The user-info key of the stores concerned (will change) or present (did change).
    public static let storesUserInfoKey = "stores"
    /// The user-info key of the stores added.
    public static let addedStoresKey = "added"
    /// The user-info key of the stores removed.
    public static let removedStoresKey = "removed"

    /// What ``storeChanges()`` delivers.
    public struct StoresChange: Sendable {
        /// Whether this is the "will change" (true) or the "did change" (false) half.
        public var isWillChange: Bool
        public var added: [PersistentStore]
        public var removed: [PersistentStore]
    }

    /// The coordinator's store changes as an asynchronous sequence.
    ///
    /// ```swift
    /// for await change in coordinator.storeChanges() where !change.isWillChange { reload() }
    /// ```
    public func storeChanges() -> AsyncStream<StoresChange> {
        let (stream, continuation) = AsyncStream<StoresChange>.makeStream()
        let observers = [Self.storesWillChangeNotification, Self.storesDidChangeNotification].map { name in
            NotificationCenter.default.addObserver(forName: name, object: self, queue: nil) { note in
                let info = note.userInfo ?? [:]
                continuation.yield(StoresChange(
                    isWillChange: note.name == Self.storesWillChangeNotification,
                    added: info[Self.addedStoresKey] as? [PersistentStore] ?? [],
                    removed: (info[Self.removedStoresKey] ?? info[Self.storesUserInfoKey]) as? [PersistentStore] ?? []))
            }
        }
        let box = ObserverBox(observers)
        continuation.onTermination = { _ in for observer in box.observers { NotificationCenter.default.removeObserver(observer) } }
        return stream
    }

    func postStoresWillChange(_ stores: [PersistentStore]) {
        NotificationCenter.default.post(name: Self.storesWillChangeNotification, object: self,
                                        userInfo: [Self.storesUserInfoKey: stores])
    }

    func postStoresDidChange(added: [PersistentStore], removed: [PersistentStore]) {
        NotificationCenter.default.post(name: Self.storesDidChangeNotification, object: self,
                                        userInfo: [Self.addedStoresKey: added, Self.removedStoresKey: removed,
                                                   Self.storesUserInfoKey: persistentStores])
    }
}

private final class ObserverBox: @unchecked Sendable {
    let observers: [any NSObjectProtocol]
    init(_ observers: [any NSObjectProtocol]) { self.observers = observers }
}
