import Foundation
import Synchronization

/// The identity of an object: its entity, its store and its row.
///
/// An ID is temporary until the object is saved (or ``ManagedObjectContext/obtainPermanentIDs(for:)``
/// is called), permanent after. IDs are `Sendable`: pass them between contexts and
/// threads, and look the object up in another context with
/// ``ManagedObjectContext/object(with:)``. For example:
///
/// ```swift
/// let id = post.objectID
/// let uri = id.uriRepresentation()   // x-coredata://<store UUID>/Post/p42
/// ```
public struct ManagedObjectID: Hashable, Sendable {
    // Laid out to fit 21 bytes (entity, key, store, flag), so that a `PropertyValue`
    // holding an ID takes 24 bytes and a row of values stays small.

    /// The entity of the object.
    public let entity: EntityDescription
    /// The row's primary key (`Z_PK`) when permanent; the process-unique counter when temporary.
    let key: Int64
    /// The store, as a small number standing for its identifier (0: none, temporary).
    let storeKey: UInt32
    /// Whether the ID is temporary (the object has not been saved).
    public let isTemporaryID: Bool

    /// The identifier (UUID) of the store the object lives in; empty when temporary.
    public var storeIdentifier: String { StoreKeys.identifier(for: storeKey) }
    /// The row's primary key (`Z_PK`); 0 when temporary.
    public var primaryKey: Int64 { isTemporaryID ? 0 : key }
    /// For temporary IDs: a number unique in this process (0 for permanent IDs).
    var temporaryReference: UInt64 { isTemporaryID ? UInt64(bitPattern: key) : 0 }

    init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.init(entity: entity, storeKey: StoreKeys.key(for: storeIdentifier), primaryKey: primaryKey)
    }

    init(entity: EntityDescription, storeKey: UInt32, primaryKey: Int64) {
        self.entity = entity
        self.key = primaryKey
        self.storeKey = storeKey
        self.isTemporaryID = false
    }

    init(temporaryFor entity: EntityDescription) {
        self.entity = entity
        self.key = Int64(bitPattern: TemporaryIDs.next.add(1, ordering: .relaxed).newValue)
        self.storeKey = 0
        self.isTemporaryID = true
    }

    /// The URI that names the object, stable across launches once permanent:
    /// `x-coredata://<store UUID>/<Entity>/p<primary key>`, or
    /// `x-coredata:///<Entity>/t<UUID>` while temporary.
    ///
    /// Model names are plain identifiers (checked when the model loads); the store
    /// identifier, read from the store file, is percent-encoded, so a crafted store cannot
    /// make the URI malformed.
    public func uriRepresentation() -> URL {
        let entityName = entity.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? ""
        let text: String
        if isTemporaryID {
            text = "x-coredata:///\(entityName)/t\(TemporaryIDs.processPrefix)\(String(temporaryReference, radix: 16, uppercase: true))"
        } else {
            let store = storeIdentifier.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) ?? ""
            text = "x-coredata://\(store)/\(entityName)/p\(primaryKey)"
        }
        // Every part is percent-encoded, so this always parses; the fallback only keeps the
        // function total.
        return URL(string: text) ?? ManagedObjectID.unparsableURI
    }

    private static let unparsableURI = URL(string: "x-coredata:///")!

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.key == rhs.key && lhs.isTemporaryID == rhs.isTemporaryID
            && lhs.entity.rootEntityNumber == rhs.entity.rootEntityNumber && lhs.storeKey == rhs.storeKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(entity.rootEntityNumber)
        hasher.combine(isTemporaryID)
    }
}

extension ManagedObjectID: CustomStringConvertible {
    public var description: String { uriRepresentation().absoluteString }
}

extension ManagedObjectID: Comparable {
    /// Orders IDs by entity, then primary key: a stable order for deterministic output.
    public static func < (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        if lhs.entity.entityNumber != rhs.entity.entityNumber { return lhs.entity.entityNumber < rhs.entity.entityNumber }
        if lhs.primaryKey != rhs.primaryKey { return lhs.primaryKey < rhs.primaryKey }
        return lhs.temporaryReference < rhs.temporaryReference
    }
}

/// The parts of an object URI.
struct ObjectURI {
    var storeIdentifier: String
    var entityName: String
    var primaryKey: Int64

    init?(_ url: URL) {
        guard url.scheme == "x-coredata", let host = url.host, !host.isEmpty else { return nil }
        let parts = url.path.split(separator: "/")
        guard parts.count == 2, parts[1].first == "p", let key = Int64(parts[1].dropFirst()), key > 0 else { return nil }
        storeIdentifier = host
        entityName = String(parts[0])
        primaryKey = key
    }
}

/// Temporary IDs: a counter, and a prefix unique to this process so that URIs of temporary
/// IDs from different processes never collide.
enum TemporaryIDs {
    static let next = Atomic<UInt64>(0)
    static let processPrefix: String = {
        let uuid = UUID().uuidString
        return String(uuid.prefix(uuid.count - 12))
    }()
}

/// Store identifiers as small numbers, so IDs compare, hash and copy without strings.
enum StoreKeys {
    private struct Table {
        var identifiers: [String] = [""]
        var keys: [String: UInt32] = ["": 0]
    }
    private static let table = Mutex(Table())

    /// The number standing for a store identifier (assigned on first use).
    static func key(for identifier: String) -> UInt32 {
        table.withLock { table in
            if let key = table.keys[identifier] { return key }
            let key = UInt32(table.identifiers.count)
            table.identifiers.append(identifier)
            table.keys[identifier] = key
            return key
        }
    }

    static func identifier(for key: UInt32) -> String {
        table.withLock { $0.identifiers[Int(key)] }
    }
}
