import Foundation
import GRDB
@testable import Nimbus

/// The stores Apple's Core Data wrote, kept outside the repository in
/// `../shared/fixtures/apple-stores` beside the checkout (or where `NIMBUS_APPLE_FIXTURES`
/// says), with the Wire app's model (`zmessaging.xcdatamodeld`, every version).
enum AppleStoreFixtures {
    /// The fixtures folder, or nil when this machine has none (the suites are then skipped).
    static let directory: URL? = {
        if let given = ProcessInfo.processInfo.environment["NIMBUS_APPLE_FIXTURES"], !given.isEmpty {
            return URL(fileURLWithPath: given, isDirectory: true)
        }
        // Tests/NimbusTests/AppleStores/<file> -> the checkout -> its parent.
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folder = checkout.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple-stores", isDirectory: true)
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent("store2-100-0.sqlite").path) ? folder : nil
    }()

    static var available: Bool { directory != nil }

    /// The store whose model version (`1.3`) the package does not hold: opening it with the
    /// package's first version is refused, naming what differs.
    static let withoutModel = "store1-24.sqlite"

    /// Every store whose model version the package holds, by file name.
    static let stores = ["store2-3.sqlite", "store2-21-1.sqlite", "store2-30-0.sqlite", "store2-39-0.sqlite",
                         "store2-66-0.sqlite", "store2-86-0.sqlite", "store2-92-0.sqlite", "store2-100-0.sqlite"]

    static func url(_ store: String) -> URL { directory!.appendingPathComponent(store) }

    /// The model version a store names in `NSStoreModelVersionIdentifiers`
    /// (`zmessaging<identifier>.xcdatamodel`); for a store whose version the package does not
    /// hold, the package's first version (`zmessaging.xcdatamodel`, 1.25).
    static func model(for store: String) throws -> ManagedObjectModel {
        let identifier = try metadata(store)["NSStoreModelVersionIdentifiers"] as? [String]
        let package = directory!.appendingPathComponent("zmessaging.xcdatamodeld")
        let name = identifier?.first.flatMap { id in
            FileManager.default.fileExists(atPath: package.appendingPathComponent("zmessaging\(id).xcdatamodel").path) ? "zmessaging\(id)" : nil
        } ?? "zmessaging"
        return try ManagedObjectModel(contentsOf: package.appendingPathComponent("\(name).xcdatamodel"))
    }

    /// The store's metadata, read with SQLite directly.
    static func metadata(_ store: String) throws -> [String: Any] {
        try raw(store) { db in
            let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA")!
            return try PropertyListSerialization.propertyList(from: plist, format: nil) as! [String: Any]
        }
    }

    /// Reads a store with SQLite directly, immutable (nothing written beside it).
    static func raw<T>(_ store: String, _ block: (Database) throws -> T) throws -> T {
        try raw(url: url(store), block)
    }

    static func raw<T>(url: URL, _ block: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: "file:\(url.path)?mode=ro&immutable=1", configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(block)
    }

    /// The bytes of every file in the store's folder, and the folder's listing: what must not
    /// change when a store is read.
    static func fingerprint(_ url: URL) throws -> [String: Data] {
        let folder = url.deletingLastPathComponent()
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let path = folder.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if isDirectory.boolValue { result[name] = Data("folder".utf8); continue }
            result[name] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return result
    }
}
