import Foundation

extension PersistentContainer {
    /// Creates a container whose model is the one named `name` among a bundle's resources
    /// (Core Data's `NSPersistentContainer(name:)`), used through the given `@Managed`
    /// classes, matched to entities by name.
    ///
    /// The model is `<name>.xcdatamodeld` (the app's Xcode model, copied as a resource), a
    /// `<name>.xcdatamodel` version folder, or `<name>.json`. In a Swift package, list the
    /// model under the target's `resources` and pass `Bundle.module`:
    ///
    /// ```swift
    /// // Package.swift: .target(name: "App", resources: [.copy("Posts.xcdatamodeld")])
    /// let container = try PersistentContainer(name: "Posts", bundle: .module, classes: [Post.self, Tag.self])
    /// try container.loadPersistentStores()
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/io`` naming where it looked when the bundle
    ///   has no model of that name; the errors of ``ManagedObjectModel/init(contentsOf:)``
    ///   and of `ManagedObjectModel.withClasses(_:)` (variadic).
    public convenience init(name: String, bundle: Bundle, classes: [any ManagedEntityClass.Type] = []) throws {
        var model = try ManagedObjectModel(contentsOf: try Self.modelURL(named: name, in: bundle))
        if !classes.isEmpty { model = try model.withClasses(classes) }
        self.init(name: name, managedObjectModel: model)
    }

    /// The first of `<name>.xcdatamodeld`, `<name>.xcdatamodel` and `<name>.json` among a
    /// bundle's resources.
    static func modelURL(named name: String, in bundle: Bundle) throws -> URL {
        let extensions = ["xcdatamodeld", "xcdatamodel", "json"]
        for fileExtension in extensions {
            if let url = bundle.url(forResource: name, withExtension: fileExtension) { return url }
        }
        let place = bundle.resourceURL?.path ?? bundle.bundlePath
        throw NimbusError(.io, "no model named \(name) in \(place) (looked for \(extensions.map { "\(name).\($0)" }.joined(separator: ", ")))")
    }
}
