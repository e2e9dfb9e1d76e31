extension FetchRequest {
    /// Runs the request in the context whose `perform` or `performAndWait` block is running
    /// (Core Data's `execute()`).
    ///
    /// ```swift
    /// try context.performAndWait {
    ///     let posts = try Post.fetchRequest().execute()
    /// }
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` outside a context's
    ///   block; otherwise the errors of ``ManagedObjectContext/fetch(_:)``.
    public func execute() throws -> [Result] {
        guard let context = ManagedObjectContext.current else {
            throw NimbusError(.invalidArgument, "FetchRequest.execute() runs inside a context's perform or performAndWait block; "
                + "outside one, call context.fetch(request)")
        }
        return try context.fetch(self)
    }
}

extension ManagedObjectContext {
    /// The context whose block runs on this thread (the innermost one), if any.
    static var current: ManagedObjectContext? {
        guard let pointer = QueueConfinement.innermost else { return nil }
        return Unmanaged<ContextReference>.fromOpaque(pointer).takeUnretainedValue().context
    }
}
