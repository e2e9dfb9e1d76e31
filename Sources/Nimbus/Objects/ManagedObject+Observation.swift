import Foundation

/// A registration made by ``ManagedObject/observeValue(forKey:_:)``; cancel it to stop.
public final class PropertyObservation {
    private weak var object: ManagedObject?
    private let key: String
    private let id: UUID

    init(object: ManagedObject, key: String, id: UUID) {
        self.object = object
        self.key = key
        self.id = id
    }

    /// Stops the observation (on the object's context's queue).
    public func cancel() {
        object?.valueObservers[key]?[id] = nil
    }
}

extension ManagedObject {
    /// Calls `handler` (on the context's queue) after each change of a property made
    /// through ``setValue(_:forKey:)``, its relatives, ``mutableSetValue(forKey:)``, the
    /// inverse side of a relationship change, or undo and redo: the observation Core Data
    /// users get from key-value observing.
    ///
    /// ```swift
    /// let observation = post.observeValue(forKey: "title") { post in print(post.value(forKey: "title") ?? "") }
    /// observation.cancel()
    /// ```
    @discardableResult
    public func observeValue(forKey key: String, _ handler: @escaping (ManagedObject) -> Void) -> PropertyObservation {
        checkQueue()
        let id = UUID()
        valueObservers[key, default: [:]][id] = handler
        return PropertyObservation(object: self, key: key, id: id)
    }

    func notifyValueObservers(forKey key: String) {
        guard let observers = valueObservers[key], !observers.isEmpty else { return }
        for handler in observers.values { handler(self) }
    }

    /// Whether anyone observes the object's values (inverse updates then tell them).
    var hasValueObservers: Bool { !valueObservers.isEmpty }
}
