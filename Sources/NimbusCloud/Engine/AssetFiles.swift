import Foundation
import NimbusWire
import Synchronization

/// The assets an import has downloaded, as files in a folder of their own (streamed to disk,
/// never held whole in memory), and how to fetch the ones a page turns out to need.
///
/// The page applier asks for an asset only where it sets the value (the record's asset field
/// is later than what the device applied, and is not the asset it already holds), so a
/// device's own assets coming back and unchanged ones are never downloaded. The folder goes
/// when the importer that made it is done.
final class AssetFiles: Sendable {
    private let folder: URL
    private let files = Mutex<[String: URL]>([:])

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-assets-\(UUID().uuidString)", isDirectory: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The bytes of a downloaded asset (mapped from its file), or `nil` when it was not downloaded.
    func bytes(_ reference: AssetReference) throws -> Data? {
        guard let file = files.withLock({ $0[reference.checksum] }) else { return nil }
        return try Data(contentsOf: file, options: .alwaysMapped)
    }

    func has(_ reference: AssetReference) -> Bool {
        files.withLock { $0[reference.checksum] != nil }
    }

    /// Downloads the assets not downloaded yet.
    /// - Throws: ``PageApplier/RecordFault`` for an asset the server no longer has (the record
    ///   that refers to it is set aside); ``CloudError`` for the network and the server.
    func download(_ references: [AssetReference], with transport: any CloudTransport) async throws {
        for reference in Set(references) where !has(reference) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(reference.checksum)
            do {
                try await transport.downloadAsset(reference, to: file)
            } catch let error as CloudError where Self.isGone(error) {
                try? FileManager.default.removeItem(at: file)
                throw PageApplier.RecordFault(description: "its asset \(reference.checksum) (\(reference.size) bytes) is missing on the server: \(error.message)")
            } catch {
                try? FileManager.default.removeItem(at: file)
                throw error
            }
            files.withLock { $0[reference.checksum] = file }
        }
    }

    /// Whether a download failed because the server does not have the asset (or no longer lets
    /// this user read it: no record it can read refers to it any more).
    static func isGone(_ error: CloudError) -> Bool {
        guard let code = error.wireError?.code else { return false }
        return code == .unknownItem || code == .permissionFailure
    }
}
