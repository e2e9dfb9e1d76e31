import Foundation
import GRDB
import Logging
import Nimbus
import NimbusWire
import Synchronization

/// Everything the exporter and importer of one mirrored store share: the store, its
/// mapping, the transport, the zone, the device's identity and two private contexts.
final class StoreMirror: Sendable {
    let store: PersistentStore
    let mirrored: MirroredModel
    /// The transport and options in use now: a new token for the same account replaces
    /// them in place (see ``replaceCredentials(options:transport:)``).
    private let connection: Mutex<(options: CloudContainerOptions, transport: any CloudTransport)>
    var transport: any CloudTransport { connection.withLock { $0.transport } }
    var options: CloudContainerOptions { connection.withLock { $0.options } }
    let deviceID: String
    let importAuthor: String
    let capture: ChangeCapture
    /// Entity number → how many to-one hops lead from it to a root (parents first).
    let depth: [Int: Int]
    let exportContext: ManagedObjectContext
    let importContext: ManagedObjectContext
    let log: Logger
    /// The conflict resolver set for an entity, if any.
    let resolver: @Sendable (String) -> ConflictResolver?
    /// How old read history must be before the mirroring purges it (`nil`: never; see ``HistoryTrim``).
    let historyRetention: TimeInterval?

    var zoneID: ZoneID { options.zoneID }

    /// The time now on the server's clock (see ``ServerClock``), read in `db`.
    func now(_ db: Database) throws -> Date { Date().addingTimeInterval(try clockOffset(db)) }

    init(store: PersistentStore, coordinator: PersistentStoreCoordinator, mirrored: MirroredModel, transport: any CloudTransport,
         options: CloudContainerOptions, deviceID: String, importAuthor: String, log: Logger,
         resolver: @escaping @Sendable (String) -> ConflictResolver? = { _ in nil }, historyRetention: TimeInterval? = nil) {
        self.resolver = resolver
        self.historyRetention = historyRetention
        self.store = store
        self.mirrored = mirrored
        self.connection = Mutex((options, transport))
        self.deviceID = deviceID
        self.importAuthor = importAuthor
        self.capture = ChangeCapture(store: store, mirrored: mirrored, importAuthor: importAuthor, deviceID: deviceID, server: options.serverURL)
        self.depth = Self.depths(mirrored)
        self.log = log
        exportContext = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        exportContext.name = "NimbusCloud.export"
        importContext = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        importContext.name = "NimbusCloud.import"
        importContext.transactionAuthor = importAuthor
    }

    /// Swaps the credentials every later request uses (a request in flight ends with the
    /// ones it started with).
    func replaceCredentials(options: CloudContainerOptions, transport: any CloudTransport) {
        connection.withLock { $0 = (options, transport) }
    }

    private static func depths(_ mirrored: MirroredModel) -> [Int: Int] {
        var depth: [Int: Int] = [:]
        func compute(_ entity: EntityDescription, _ visiting: Set<String>) -> Int {
            if let known = depth[entity.entityNumber] { return known }
            var result = 0
            for (_, role) in mirrored.roles[entity.name] ?? [:] {
                guard case let .toOne(relationship) = role, !visiting.contains(relationship.destinationEntityName),
                      let destination = mirrored.entities.first(where: { $0.name == relationship.destinationEntityName }) else { continue }
                result = max(result, 1 + compute(destination, visiting.union([entity.name])))
            }
            depth[entity.entityNumber] = result
            return result
        }
        for entity in mirrored.entities { _ = compute(entity, [entity.name]) }
        return depth
    }
}
