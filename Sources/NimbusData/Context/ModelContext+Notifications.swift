public import Foundation
import Nimbus

extension ModelContext {
    /// Posted (object: the context) before a save writes.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in … }
    /// ```
    public static let willSave = Notification.Name("NimbusDataModelContextWillSave")
    /// Posted (object: the context) after a save wrote, with the saved identifiers under
    /// ``NotificationKey`` raw values.
    ///
    /// ```swift
    /// let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]
    /// ```
    public static let didSave = Notification.Name("NimbusDataModelContextDidSave")

    /// The user-info keys of ``didSave``.
    public enum NotificationKey: String, Sendable {
        case queryGeneration
        case invalidatedIdentifiers
        case insertedIdentifiers
        case updatedIdentifiers
        case deletedIdentifiers
    }

    /// Tells observers of this context's models about changes merged from other contexts'
    /// saves (and from sync, which saves through a context of its own).
    func observeMerges() {
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didMergeChangesObjectIDsNotification, object: managedObjectContext, queue: nil
        ) { [weak self] note in
            guard let self, let changes = note.userInfo?[ManagedObjectContext.NotificationKey.changes] as? ContextChanges else { return }
            self.modelsMerged(changes.updatedObjectIDs.union(changes.refreshedObjectIDs).union(changes.deletedObjectIDs))
        }
        state.withLock { $0.mergeObserver = observer }
    }

    func modelsMerged(_ ids: Set<ManagedObjectID>) {
        let models: [any PersistentModel] = performed {
            ids.compactMap { managedObjectContext.registeredObject(for: $0).flatMap(registeredModel(of:)) }
        }
        for model in models {
            model._nimbusNotifyObservers(Set(type(of: model).schemaMetadata.map(\.name)))
        }
    }
}
