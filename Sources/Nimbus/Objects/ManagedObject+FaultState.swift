import Foundation

extension ManagedObject {
    /// 0 when the object's values are loaded, 1 while it is a fault, as Core Data's
    /// `faultingState` (0 means "fully realized"). For example:
    ///
    /// ```swift
    /// if post.faultingState != 0 { print("not loaded yet") }
    /// ```
    public var faultingState: Int { checkQueue(); return values == nil ? 1 : 0 }

    /// Whether reading a relationship would go to the store, as Core Data's
    /// `hasFault(forRelationshipNamed:)`: for a to-many, whether its members are not loaded
    /// yet; for a to-one, whether its destination is a fault (not registered in the context,
    /// or registered unloaded); always true while the object itself is a fault. Asking never
    /// fires a fault. For example:
    ///
    /// ```swift
    /// if post.hasFault(forRelationshipNamed: "tags") { prefetch(post) }
    /// ```
    ///
    /// An unknown relationship name stops the program, as Core Data raises for it.
    public func hasFault(forRelationshipNamed name: String) -> Bool {
        checkQueue()
        guard let index = entity.propertyIndexes[name], entity.properties[index].relationship != nil else {
            preconditionFailure("\(entity.name) has no relationship \(name)")
        }
        guard let values else { return true }
        if entity.toManyIndexes.contains(index) { return !loadedToMany.contains(index) }
        guard case let .object(id) = values[index] else { return false }
        guard let destination = managedObjectContext?.registeredObject(for: id) else { return true }
        return destination.values == nil
    }
}
