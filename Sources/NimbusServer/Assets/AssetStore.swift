import Crypto
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOPosix
import NimbusWire

/// Content-addressed asset files under `<data-dir>/assets/<first two hex>/<sha256>`.
///
/// Uploads stream to a temporary file while hashing (``receive(_:maximumBytes:expectedChecksum:)``);
/// the route then charges the bytes to the uploader and only then moves the file into place
/// under its checksum (``keep(_:)``), or deletes it (``discard(_:)``). Identical content is
/// stored once and no upload is held whole in memory.
///
/// For example:
/// ```swift
/// let received = try await assets.receive(request.body, maximumBytes: 1 << 30, expectedChecksum: nil)
/// do { try await charge(received.reference); try assets.keep(received) } catch { assets.discard(received); throw error }
/// ```
package final class AssetStore: Sendable {
    /// An upload hashed and written to a temporary file, not yet in place.
    package struct ReceivedAsset: Sendable {
        /// The checksum and size of the bytes received.
        package var reference: AssetReference
        fileprivate var temporaryPath: String
    }

    package let root: String
    private let lock = NIOLock()
    /// Writes one chunk to the temporary file; injected by tests to make writes slow.
    private let write: @Sendable (FileHandle, Data) throws -> Void

    /// - Parameters:
    ///   - root: The assets folder.
    ///   - write: Writes a chunk of an upload (a test seam; the default writes the bytes).
    package init(root: String, write: @escaping @Sendable (FileHandle, Data) throws -> Void = { try $0.write(contentsOf: $1) }) throws {
        self.root = root
        self.write = write
        try FileManager.default.createDirectory(atPath: root + "/tmp", withIntermediateDirectories: true)
    }

    /// Removes the temporary files of uploads a previous run left unfinished (a crash or a
    /// kill in the middle of an upload); called at start by the only server on the folder.
    /// - Returns: How many files were removed.
    @discardableResult
    package func removeLeftoverUploads() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/tmp")) ?? []
        return names.filter { (try? FileManager.default.removeItem(atPath: "\(root)/tmp/\($0)")) != nil }.count
    }

    /// Runs blocking file-system work on NIO's thread pool, never on the cooperative pool
    /// that runs every request's task (two threads on a two-core machine).
    package static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// The file of an asset.
    package func path(for checksum: String) -> String {
        "\(root)/\(checksum.prefix(2))/\(checksum)"
    }

    /// Whether the file of an asset exists.
    package func exists(_ checksum: String) -> Bool {
        FileManager.default.fileExists(atPath: path(for: checksum))
    }

    /// The size of an asset's file, or `nil` when it is not stored.
    package func size(of checksum: String) async throws -> Int64? {
        let path = path(for: checksum)
        return try await Self.blocking { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value }
    }

    /// Streams a body to a temporary file, hashing as it goes.
    /// - Parameters:
    ///   - body: The request body.
    ///   - maximumBytes: The largest accepted asset; the upload stops as soon as it is passed.
    ///   - expectedChecksum: The checksum the client claims, checked when given.
    /// - Returns: The received asset, to ``keep(_:)`` or ``discard(_:)``.
    /// - Throws: `limitExceeded` for a larger body; `invalidArguments` for an empty body or
    ///   when the checksum differs. Nothing is kept on failure.
    package func receive(_ body: RequestBody, maximumBytes: Int64, expectedChecksum: String?) async throws -> ReceivedAsset {
        let temporary = "\(root)/tmp/\(UUID().uuidString)"
        let created = try await Self.blocking { () -> FileHandle? in
            guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else { return nil }
            return FileHandle(forWritingAtPath: temporary)
        }
        guard let handle = created else { throw WireError(.internalError, "Could not create a temporary asset file.") }
        let write = self.write
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            defer { try? handle.close() }  // close(2) on a regular file does not wait for the disk
            for try await buffer in body {
                size += Int64(buffer.readableBytes)
                if size > maximumBytes {
                    throw WireError(.limitExceeded, "The asset is larger than \(maximumBytes) bytes.")
                }
                buffer.withUnsafeReadableBytes { bytes in hasher.update(bufferPointer: bytes) }
                let chunk = Data(buffer: buffer)
                try await Self.blocking { try write(handle, chunk) }
            }
            if size == 0 {
                throw WireError(.invalidArguments, "The upload has no bytes; send the asset's content as the request body.")
            }
            try await Self.blocking { try handle.synchronize() }
        } catch {
            _ = try? await Self.blocking { try FileManager.default.removeItem(atPath: temporary) }
            throw error
        }
        let checksum = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        if let expectedChecksum, expectedChecksum != checksum {
            _ = try? await Self.blocking { try FileManager.default.removeItem(atPath: temporary) }
            throw WireError(.invalidArguments, "The uploaded bytes hash to \(checksum), not \(expectedChecksum).")
        }
        return ReceivedAsset(reference: AssetReference(checksum: checksum, size: size), temporaryPath: temporary)
    }

    /// Moves a received asset into place (or drops it when identical content is stored).
    package func keep(_ received: ReceivedAsset) async throws {
        try await Self.blocking { try self.moveIntoPlace(received) }
    }

    private func moveIntoPlace(_ received: ReceivedAsset) throws {
        let checksum = received.reference.checksum
        try lock.withLock {
            let destination = path(for: checksum)
            try FileManager.default.createDirectory(atPath: "\(root)/\(checksum.prefix(2))", withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: destination) {
                try FileManager.default.removeItem(atPath: received.temporaryPath)
            } else {
                try FileManager.default.moveItem(atPath: received.temporaryPath, toPath: destination)
            }
        }
    }

    /// Deletes a received asset's temporary file.
    package func discard(_ received: ReceivedAsset) async {
        let path = received.temporaryPath
        _ = try? await Self.blocking { try FileManager.default.removeItem(atPath: path) }
    }

    /// Deletes the files of assets nothing refers to any more.
    package func remove(_ checksums: [String]) async {
        _ = try? await Self.blocking {
            self.lock.withLock {
                for checksum in checksums { try? FileManager.default.removeItem(atPath: self.path(for: checksum)) }
            }
        }
    }
}
