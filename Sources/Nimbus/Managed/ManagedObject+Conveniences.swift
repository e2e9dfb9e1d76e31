import Foundation

extension ManagedObject {
    /// Creates an object of the class's entity in a context's model and inserts it (Core
    /// Data's `init(context:)`).
    ///
    /// ```swift
    /// let post = Post(context: context)
    /// post.title = "Hello"
    /// ```
    ///
    /// The context's model must have exactly one entity of this class; anything else stops
    /// the process (as Core Data raises), naming the model's entities.
    public convenience init(context: ManagedObjectContext) {
        let entity: EntityDescription
        do {
            entity = try context.managedObjectModel.entity(forClass: Self.self)
        } catch let error as NimbusError {
            preconditionFailure(error.message)
        } catch {
            preconditionFailure("\(error)")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// The entity of this class in the most recently built model that has it (Core Data's
    /// `entity()`).
    ///
    /// ```swift
    /// let entity = Post.entity()   // entity.name == "Post"
    /// ```
    ///
    /// Stops the process when no model has the class yet: build the model first.
    public static func entity() -> EntityDescription {
        guard let entity = ManagedClassRegistry.entity(for: self) else {
            preconditionFailure("no model has an entity of class \(self) yet; build the model (ManagedObjectModel(\(self).self, …)) first")
        }
        return entity
    }
}

extension ManagedObjectKeyPathNaming {
    /// A fetch request for the class's entity (Core Data's `fetchRequest()`), typed by the
    /// class: `@Managed` classes and classes that name their key paths have it.
    ///
    /// ```swift
    /// var request = Post.fetchRequest()
    /// request.predicate = try QueryPredicate(#Predicate<Post> { $0.views > 100 })
    /// let posts: [Post] = try request.execute()
    /// ```
    public static func fetchRequest() -> FetchRequest<Self> {
        if let typed = self as? any ManagedEntityClass.Type { return FetchRequest(entityName: typed.managedEntityName) }
        return FetchRequest(entityName: entity().name)
    }

    /// A fetch request for the class's entity with a `#Predicate` and sort descriptors over
    /// the class, in one call (what SwiftData's `FetchDescriptor(predicate:sortBy:)` is).
    ///
    /// ```swift
    /// let request = try Recipe.fetchRequest(#Predicate { $0.prepMinutes < 30 }, sortBy: [SortDescriptor(\.name)])
    /// let quick = try request.execute()
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` when the predicate or a sort
    ///   descriptor has no SQL translation.
    public static func fetchRequest(_ predicate: Predicate<Self>? = nil, sortBy sortDescriptors: [SortDescriptor<Self>] = []) throws -> FetchRequest<Self> {
        var request = fetchRequest()
        if let predicate { try request.setPredicate(predicate) }
        try request.setSortDescriptors(sortDescriptors)
        return request
    }
}

extension ManagedObjectModel {
    /// The entity whose instances are of a class.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownEntity`` when no entity, or more
    ///   than one, has the class.
    public func entity(forClass managedClass: ManagedObject.Type) throws -> EntityDescription {
        let matches = entities.filter { $0.managedObjectClass == managedClass }
        if matches.count == 1 { return matches[0] }
        // A class shared by a hierarchy belongs to its topmost entity.
        let topmost = matches.filter { $0.superentity?.managedObjectClass != managedClass }
        if topmost.count == 1 { return topmost[0] }
        let names = entities.map { "\($0.name) (\($0.managedObjectClass))" }.joined(separator: ", ")
        throw NimbusError(.unknownEntity, matches.isEmpty
            ? "the model has no entity of class \(managedClass) (entities: \(names))"
            : "several entities of the model have class \(managedClass): \(matches.map(\.name).joined(separator: ", "))")
    }
}
