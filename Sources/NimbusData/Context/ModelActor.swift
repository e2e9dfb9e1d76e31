/// Runs a model context's work: SwiftData's `ModelExecutor`. NimbusData's contexts run
/// their work on their own queue, so an executor only holds its context.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the executor's actor uses.
    var modelContext: ModelContext { get }
}

/// The executor `@ModelActor` makes: SwiftData's `DefaultSerialModelExecutor`.
public final class DefaultSerialModelExecutor: ModelExecutor, @unchecked Sendable {
    public let modelContext: ModelContext

    /// Creates an executor for a context.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
    }
}

/// An actor with a model context of its own, for work off the main actor: SwiftData's
/// `ModelActor`, made with `@ModelActor`.
///
/// ```swift
/// @ModelActor actor TripImporter {
///     func importTrips(_ names: [String]) throws {
///         for name in names { modelContext.insert(Trip(name: name)) }
///         try modelContext.save()
///     }
/// }
/// try await TripImporter(modelContainer: container).importTrips(["Oslo"])
/// ```
public protocol ModelActor: Actor {
    /// The container the actor's context uses.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that holds the actor's context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with an identifier, in the actor's context (nil when there is none of
    /// type `T`).
    public subscript<T: PersistentModel>(_ id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.model(for: id) as? T
    }
}

/// Makes an actor a ``ModelActor``: it gets `modelContainer`, `modelExecutor` (with its own
/// ``ModelContext``) and `init(modelContainer:)`.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "NimbusMacros", type: "ModelActorMacro")
