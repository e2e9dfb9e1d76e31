import Crypto
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NimbusWire

/// Content-addressed asset files under `<data-dir>/assets/<first two hex>/<sha256>`.
///
/// Uploads stream to a temporary file while hashing, then move into place under their
/// checksum, so identical content is stored once and no upload is held whole in memory.
package final class AssetStore: Sendable {
    package let root: String
    private let lock = NIOLock()

    package init(root: String) throws {
        self.root = root
        try FileManager.default.createDirectory(atPath: root + "/tmp", withIntermediateDirectories: true)
    }

    /// The file of an asset.
    package func path(for checksum: String) -> String {
        "\(root)/\(checksum.prefix(2))/\(checksum)"
    }

    /// Whether the file of an asset exists.
    package func exists(_ checksum: String) -> Bool {
        FileManager.default.fileExists(atPath: path(for: checksum))
    }

    /// Streams a body to disk, hashing as it goes.
    /// - Parameters:
    ///   - body: The request body.
    ///   - maximumBytes: The largest accepted asset.
    ///   - expectedChecksum: The checksum the client claims, checked when given.
    /// - Returns: The stored asset's reference.
    /// - Throws: `limitExceeded` for a larger body; `invalidArguments` when the checksum differs.
    package func store(_ body: RequestBody, maximumBytes: Int64, expectedChecksum: String?) async throws -> AssetReference {
        let temporary = "\(root)/tmp/\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary)
        else { throw WireError(.internalError, "Could not create a temporary asset file.") }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            defer { try? handle.close() }
            for try await buffer in body {
                size += Int64(buffer.readableBytes)
                if size > maximumBytes {
                    throw WireError(.limitExceeded, "The asset is larger than \(maximumBytes) bytes.")
                }
                buffer.withUnsafeReadableBytes { bytes in hasher.update(bufferPointer: bytes) }
                try handle.write(contentsOf: Data(buffer: buffer))
            }
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        let checksum = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        if let expectedChecksum, expectedChecksum != checksum {
            try? FileManager.default.removeItem(atPath: temporary)
            throw WireError(.invalidArguments, "The uploaded bytes hash to \(checksum), not \(expectedChecksum).")
        }
        try lock.withLock {
            let destination = path(for: checksum)
            try FileManager.default.createDirectory(atPath: "\(root)/\(checksum.prefix(2))", withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: destination) {
                try FileManager.default.removeItem(atPath: temporary)
            } else {
                try FileManager.default.moveItem(atPath: temporary, toPath: destination)
            }
        }
        return AssetReference(checksum: checksum, size: size)
    }

    /// Deletes the files of assets nothing refers to any more.
    package func remove(_ checksums: [String]) {
        lock.withLock {
            for checksum in checksums { try? FileManager.default.removeItem(atPath: path(for: checksum)) }
        }
    }
}
