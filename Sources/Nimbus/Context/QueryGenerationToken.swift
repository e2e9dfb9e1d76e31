import Foundation
import GRDB
import Synchronization

/// A generation of the stores' data: a context pinned to one sees the same snapshot for
/// every fetch and fault until it moves on.
///
/// ```swift
/// try context.setQueryGenerationFrom(.current)   // pin on the next read
/// let token = context.queryGenerationToken        // share the same generation
/// try other.setQueryGenerationFrom(token)
/// ```
///
/// A pinned SQLite store in WAL mode keeps a reader open in a read transaction; stores in
/// other modes (in-memory, rollback journal, read-only) have a single generation: the latest.
public final class QueryGenerationToken: Sendable, Equatable, CustomStringConvertible {
    /// Pin to the current generation when the context next reads.
    public static let current = QueryGenerationToken(isCurrentMarker: true)

    let isCurrentMarker: Bool
    private let snapshots = Mutex<[String: DatabaseSnapshot]>([:])
    private let storeIdentifiers = Mutex<Set<String>>([])

    private init(isCurrentMarker: Bool) { self.isCurrentMarker = isCurrentMarker }

    /// A token that pins the given stores now.
    static func pinning(_ stores: [PersistentStore]) throws -> QueryGenerationToken {
        let token = QueryGenerationToken(isCurrentMarker: false)
        var snapshots: [String: DatabaseSnapshot] = [:]
        for store in stores {
            if let pool = store.database.writer as? DatabasePool {
                snapshots[store.identifier] = try store.database.gate.pass(store.identifier) { try pool.makeSnapshot() }
            }
        }
        token.snapshots.withLock { $0 = snapshots }
        token.storeIdentifiers.withLock { $0 = Set(stores.map(\.identifier)) }
        return token
    }

    /// The pinned snapshot of a store, nil for stores outside the generation.
    func snapshot(for store: PersistentStore) -> DatabaseSnapshot? {
        snapshots.withLock { $0[store.identifier] }
    }

    /// The stores the generation covers.
    var stores: Set<String> { storeIdentifiers.withLock { $0 } }

    public static func == (lhs: QueryGenerationToken, rhs: QueryGenerationToken) -> Bool { lhs === rhs }

    public var description: String {
        isCurrentMarker ? "<query generation: current>" : "<query generation \(ObjectIdentifier(self)) of \(stores.count) store(s)>"
    }
}

extension ManagedObjectContext {
    /// The generation the context is pinned to, nil when unpinned (it reads the latest data).
    public var queryGenerationToken: QueryGenerationToken? {
        checkQueue()
        return switch generation {
        case .unpinned: nil
        case .current: .current
        case let .pinned(token, _): token
        }
    }

    /// Pins the context to a generation, or unpins it with nil.
    ///
    /// - `.current` pins to the latest generation at the next read, and moves to the latest
    ///   again after the context saves, merges changes or resets.
    /// - A token from another context shares that context's generation.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidToken`` when none of the token's
    ///   stores are in the coordinator any more.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        checkQueue()
        guard let token else { generation = .unpinned; return }
        guard parent == nil else {
            throw NimbusError(.invalidArgument, "a nested context reads through its parent and is always unpinned; pin the parent instead")
        }
        if token.isCurrentMarker { generation = .current; return }
        let present = Set(persistentStoreCoordinator.persistentStores.map(\.identifier))
        guard !token.stores.isDisjoint(with: present) else {
            throw NimbusError(.invalidToken, "the query generation's stores are no longer in the coordinator")
        }
        generation = .pinned(token, followsCurrent: false)
    }

    var isPinned: Bool { if case .unpinned = generation { false } else { true } }

    /// Reads a store at the context's generation.
    func read<T>(_ store: PersistentStore, _ block: (Database) throws -> T) throws -> T {
        switch generation {
        case .unpinned:
            return try store.database.readStatement(block)
        case .current:
            let token = try QueryGenerationToken.pinning(persistentStoreCoordinator.persistentStores)
            generation = .pinned(token, followsCurrent: true)
            return try read(store, block)
        case let .pinned(token, _):
            guard let snapshot = token.snapshot(for: store) else { return try store.database.read(block) }
            do { return try snapshot.read(block) } catch let error as DatabaseError { throw NimbusError.from(error, path: nil) }
        }
    }

    /// After a save, a merge or a reset, a context pinned with `.current` moves to the latest
    /// generation (at its next read).
    func advanceQueryGeneration() {
        if case let .pinned(_, followsCurrent) = generation, followsCurrent { generation = .current }
    }
}

/// Where a context's reads come from.
enum QueryGeneration {
    case unpinned
    /// Pin at the next read.
    case current
    case pinned(QueryGenerationToken, followsCurrent: Bool)
}
