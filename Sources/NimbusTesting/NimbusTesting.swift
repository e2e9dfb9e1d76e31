import Foundation
import Nimbus

/// A folder under the system's temporary directory, removed when released.
///
/// ```swift
/// let folder = try TemporaryDirectory()
/// let url = folder.url.appendingPathComponent("Store.sqlite")
/// ```
public final class TemporaryDirectory: @unchecked Sendable {
    /// The folder's location.
    public let url: URL

    /// Creates a new, empty folder.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
