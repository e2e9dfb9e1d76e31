public import Foundation
import Nimbus
public import Observation
import Synchronization

/// The models of a fetch, kept current: a `@Query` for code without SwiftUI. It fetches
/// again (on its context's queue, soon after) every save to the container's stores (this
/// process's contexts, and sync imports), and is `Observable`, so `withObservationTracking`
/// sees each new result.
///
/// ```swift
/// let trips = try FetchResults(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), in: context)
/// withObservationTracking { _ = trips.models } onChange: { print("trips changed") }
/// ```
public final class FetchResults<T: PersistentModel>: Observable, RandomAccessCollection, @unchecked Sendable {
    /// The descriptor the results follow.
    public let descriptor: FetchDescriptor<T>
    /// The context the models belong to.
    public let context: ModelContext

    private let registrar = ObservationRegistrar()
    private let storage = Locked<[T]>([])
    private let observer = Locked<(any NSObjectProtocol)?>(nil)

    /// Fetches and starts following saves.
    ///
    /// - Throws: the errors of ``ModelContext/fetch(_:)``.
    public init(_ descriptor: FetchDescriptor<T>, in context: ModelContext) throws {
        self.descriptor = descriptor
        self.context = context
        let first = try context.fetch(descriptor)
        storage.withLock { $0 = first }
        let coordinator = context.container.persistentContainer.persistentStoreCoordinator
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil
        ) { [weak self] note in
            guard let self, let saving = note.object as? ManagedObjectContext,
                  saving.persistentStoreCoordinator === coordinator else { return }
            // On the results' own queue, after the saving context's work: waiting for it
            // here could deadlock two contexts that save while each has results on the other.
            self.context.managedObjectContext.perform { [weak self] in self?.refresh() }
        }
        observer.withLock { $0 = token }
    }

    deinit {
        if let token = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(token) }
    }

    /// The current models.
    public var models: [T] {
        registrar.access(self, keyPath: \.models)
        return storage.withLock { $0 }
    }

    /// Fetches again now; observers are told when the result changed.
    public func refresh() {
        let fresh: [T]
        do {
            fresh = try context.fetch(descriptor)
        } catch {
            ModelContext.logger.error("FetchResults<\(T.self)> could not fetch again and keeps its last result: \(error)")
            return
        }
        // Values of the same models may have changed too: observers hear of every save.
        registrar.withMutation(of: self, keyPath: \.models) {
            storage.withLock { $0 = fresh }
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { models.count }
    public subscript(position: Int) -> T { models[position] }
}
