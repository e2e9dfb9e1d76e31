import Crypto
import Foundation
import GRDB
import NimbusWire
import Synchronization

/// The transport through a shared folder: no server, only a folder that a file service
/// (Syncthing, Dropbox, a NAS, a USB stick) copies between devices, as Core Data's first
/// iCloud sync did.
///
/// Each device appends immutable transaction logs under its own peer folder and imports the
/// logs of the others into its own index (`FolderIndex`), which answers the engine as a
/// server would: the same records, stamps and merge rules (per-field stamps, deletion wins,
/// unique keys converge) run whichever transport carries them. Baselines let a new device
/// start without every log, and compaction removes logs every known peer has imported.
///
/// For example:
/// ```swift
/// cloud.cloudContainerOptions = CloudContainerOptions(folder: sharedFolder, containerIdentifier: "posts")
/// // CloudContainer makes a FolderTransport for it; or by hand:
/// let transport = FolderTransport(options: cloud.cloudContainerOptions!)
/// try await transport.checkServer()
/// ```
public struct FolderTransport: CloudTransport {
    /// The options (``CloudContainerOptions/folderSync`` set).
    public let options: CloudContainerOptions
    let folder: FolderSyncOptions
    let layout: FolderLayout
    let session: FolderSession

    /// Creates a transport for options made with ``CloudContainerOptions/init(folder:containerIdentifier:zoneName:folderOptions:)``.
    ///
    /// Nothing is opened until the first call: a bad index location or key is reported by
    /// the calls, as a ``CloudError``.
    public init(options: CloudContainerOptions) {
        self.options = options
        folder = options.folderSync ?? FolderSyncOptions(folder: options.serverURL)
        layout = FolderLayout(root: folder.folder)
        session = FolderSession()
    }

    /// The device's index (opened on first use).
    func index() throws -> FolderIndex {
        try session.index.withLock { index in
            if let index { return index }
            guard let url = folder.indexURL else {
                throw CloudError(.invalidConfiguration, "the folder sync of \(folder.folder.path) has no index location (FolderSyncOptions.indexURL)")
            }
            let opened = try FolderIndex(url: url)
            index = opened
            return opened
        }
    }

    func key() throws -> SymmetricKey? { try SealedFile.key(of: folder) }

    /// Throws a network error (retried with backoff, nothing lost) when the folder is missing.
    func requireFolder() throws {
        guard layout.exists else {
            throw CloudError(.network, "the shared folder \(folder.folder.path) is missing (an unmounted volume?); syncing resumes when it is back")
        }
    }

    // MARK: CloudTransport

    public func checkServer() async throws {
        try requireFolder()
        _ = try key()
        let index = try index()
        if let data = FolderLayout.read(layout.marker) {
            guard let marker = try? JSONDecoder().decode(FolderMarker.self, from: data) else {
                throw CloudError(.incompatibleServer, "\(layout.marker.path) is not a Nimbus folder marker")
            }
            guard marker.format == 1 else {
                throw CloudError(.incompatibleServer, "the shared folder has format \(marker.format); this build reads format 1: update the app")
            }
            guard marker.container == options.containerIdentifier else {
                throw CloudError(.invalidConfiguration, "the shared folder \(folder.folder.path) holds the container \(marker.container), "
                    + "not \(options.containerIdentifier): give each container its own folder")
            }
        } else {
            try SealedFile.write(try JSONEncoder().encode(FolderMarker(container: options.containerIdentifier)), to: layout.marker)
        }
        do {
            try FileManager.default.createDirectory(at: layout.logs(index.peerID), withIntermediateDirectories: true)
        } catch {
            throw CloudError(.network, "the peer folder \(layout.peer(index.peerID).path) could not be made: \(error)")
        }
    }

    public func account() async throws -> AccountResponse {
        AccountResponse(userName: "folder:" + options.containerIdentifier, deviceID: try index().peerID)
    }

    /// Zones need no creation in a folder: logs name their zone.
    public func createZone(_ zone: ZoneID) async throws {
        try requireFolder()
    }

    /// Erases the zone: writes a log that erases every value and tombstone stamped before now,
    /// on every device that reads it (whatever order logs arrive in; decision 0116).
    public func deleteZone(_ zone: ZoneID) async throws {
        try requireFolder()
        let index = try index()
        _ = try key()
        let layout = self.layout, folder = self.folder
        // The hybrid-logical-clock reading of now (milliseconds shifted 16 bits, counter 0).
        let stamp = HLCStamp(time: Int64(Date().timeIntervalSince1970 * 1000) << 16, device: index.peerID)
        try await index.queue.write { db in
            let modify = FolderModify(index: index, layout: layout, key: try SealedFile.key(of: folder))
            try modify.append(FolderLog(peer: index.peerID, seq: try modify.nextSeq(db), zone: zone.zoneName,
                                        time: Int64(Date().timeIntervalSince1970 * 1000), saves: [], deletions: [], erase: stamp), db)
        }
        try await writeReceipt()
    }

    public func modify(_ request: ModifyRecordsRequest, in zone: ZoneID) async throws -> ModifyRecordsResponse {
        try requireFolder()
        let index = try index()
        _ = try key()   // a bad key fails here, before anything is read
        let layout = self.layout, folder = self.folder
        let response = try await index.queue.write { db in
            try FolderModify(index: index, layout: layout, key: try SealedFile.key(of: folder)).run(request, zone: zone.zoneName, db)
        }
        try await writeReceipt()
        return response
    }

    public func fetchChanges(_ request: FetchZoneChangesRequest, in zone: ZoneID) async throws -> FetchZoneChangesResponse {
        let index = try index()
        // A continuation of pages already being read does not look at the folder again.
        if !session.isContinuation(request.since) { try await importFolder() }
        let limit = min(max(request.limit ?? FetchZoneChangesRequest.maximumLimit, 1), FetchZoneChangesRequest.maximumLimit)
        let since = request.since
        let (page, last, position, prefix) = try await index.queue.read { db in
            let prefix = try Self.tokenPrefix(index, db)
            let position = try Self.position(of: since, prefix: prefix)
            return (try index.changes(zone: zone.zoneName, since: position, limit: limit, db), try FolderIndex.changeSeq(db), position, prefix)
        }
        let end = page.moreComing ? page.records.last!.seq : max(last, position)
        let token = ChangeToken(rawValue: "f1.\(prefix).\(end)")
        if page.moreComing { session.remember(token) }
        return FetchZoneChangesResponse(
            records: page.records.filter { !$0.isTombstone }.map { $0.wire(indexID: index.indexID) },
            deletions: page.records.compactMap { record in record.deletion.map { DeletedRecord(recordName: record.name, stamp: $0) } },
            changeToken: token, moreComing: page.moreComing)
    }

    /// What this index's tokens start with now: its id and epoch (``FolderIndex/epoch(_:)``).
    static func tokenPrefix(_ index: FolderIndex, _ db: Database) throws -> String {
        "\(index.indexID)-\(try FolderIndex.epoch(db))"
    }

    /// The position a token names (0 for none); a token of another index or epoch expired.
    static func position(of token: ChangeToken?, prefix: String) throws -> Int64 {
        guard let token else { return 0 }
        let parts = token.rawValue.split(separator: ".")
        guard parts.count == 3, parts[0] == "f1", parts[1] == prefix, let seq = Int64(parts[2]) else {
            throw CloudError(.changeTokenExpired, "the change token \(token) is not one of this device's folder index; fetching the zone again")
        }
        return seq
    }

    /// Records by name. A name the index has never heard of answers `serviceUnavailable`, not
    /// `unknownItem`: in a folder a record may simply not have arrived yet, and only a
    /// tombstone (kept for good) says a record is gone.
    public func lookup(_ names: [String], in zone: ZoneID) async throws -> [LookupResult] {
        try await importFolder()
        let index = try index()
        return try await index.queue.read { db in
            try names.map { name in
                guard let record = try index.record(zone: zone.zoneName, name: name, db) else {
                    return LookupResult(recordName: name, error: ItemError(name: name, code: .serviceUnavailable,
                                                                           message: "the record has not arrived in the shared folder (yet)"))
                }
                if record.isTombstone {
                    return LookupResult(recordName: name, error: ItemError(name: name, code: .unknownItem, message: "the record was deleted"))
                }
                return LookupResult(recordName: name, record: record.wire(indexID: index.indexID))
            }
        }
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference {
        try requireFolder()
        let checksum = SealedFile.hex(SHA256.hash(data: data))
        let reference = AssetReference(checksum: checksum, size: Int64(data.count))
        let url = layout.asset(checksum)
        if let existing = FolderLayout.read(url), (try? SealedFile.open(existing, expecting: .asset, key: try key())) != nil {
            return reference
        }
        try SealedFile.write(try SealedFile.seal(data, kind: .asset, key: try key()), to: url)
        return reference
    }

    public func downloadAsset(_ asset: AssetReference) async throws -> Data {
        guard let data = FolderLayout.read(layout.asset(asset.checksum)) else {
            throw CloudError(.network, "the asset \(asset.checksum) has not arrived in the shared folder yet")
        }
        let body: Data
        do { body = try SealedFile.open(data, expecting: .asset, key: try key()).body } catch let problem as SealedFile.Problem {
            switch problem {
            case .incomplete(let why): throw CloudError(.network, "the asset \(asset.checksum) is still arriving: \(why)")
            case .wrongKey(let why): throw CloudError(.invalidConfiguration, "the asset \(asset.checksum) can't be read: \(why)")
            case .unreadable(let why): throw CloudError(.incompatibleServer, "the asset \(asset.checksum) can't be read: \(why)")
            }
        }
        guard SealedFile.hex(SHA256.hash(data: body)) == asset.checksum else {
            throw CloudError(.network, "the asset \(asset.checksum) in the shared folder has other content; it will be read again")
        }
        return body
    }

    /// Looks at the folder every ``FolderSyncOptions/pollInterval`` seconds and says "zone
    /// changed" when another device's files changed (a file service gives no push).
    public func pushMessages() -> AsyncThrowingStream<PushMessage, any Error> {
        let (stream, continuation) = AsyncThrowingStream<PushMessage, any Error>.makeStream()
        let layout = self.layout, interval = max(folder.pollInterval, 0.05), options = self.options
        // The index not opening is a failure the listener must see, not a reason to watch blind.
        let own: String
        do { own = try index().peerID } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let task = Task {
            var last: [String]?
            while !Task.isCancelled {
                let now = layout.fingerprint(excluding: own)
                if last == nil {
                    // As a server's socket says hello: files that came before the first look
                    // are synced too.
                    continuation.yield(PushMessage(kind: .hello, container: options.containerIdentifier, database: options.databaseScope,
                                                   databaseChangeToken: ChangeToken(rawValue: "folder")))
                } else if last != now {
                    continuation.yield(PushMessage(kind: .zoneChanged, container: options.containerIdentifier, database: options.databaseScope,
                                                   zoneID: options.zoneID, databaseChangeToken: ChangeToken(rawValue: "folder")))
                }
                last = now
                guard (try? await Pause.sleep(for: .milliseconds(Int(interval * 1000)))) != nil else { break }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// What a transport keeps between calls: its index, once opened, and the tokens of pages
/// it answered with more to come.
final class FolderSession: Sendable {
    let index = Mutex<FolderIndex?>(nil)
    private let continuations = Mutex<Set<String>>([])
    /// What the last look at the folder found.
    let lastImport = Mutex(FolderImportReport())

    func remember(_ token: ChangeToken) { _ = continuations.withLock { $0.insert(token.rawValue) } }

    func isContinuation(_ token: ChangeToken?) -> Bool {
        guard let token else { return false }
        return continuations.withLock { $0.remove(token.rawValue) != nil }
    }
}

extension FolderLayout {
    /// The names and sizes of the other peers' files: what changes when they write.
    func fingerprint(excluding own: String?) -> [String] {
        var result: [String] = []
        for peer in peerIDs() where peer != own {
            for (_, url) in logFiles(peer) { result.append(url.path) }
            let baseline = self.baseline(peer)
            if let size = (try? FileManager.default.attributesOfItem(atPath: baseline.path))?[.size] as? Int { result.append("\(baseline.path):\(size)") }
        }
        return result
    }
}
