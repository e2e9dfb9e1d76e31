import Foundation
import GRDB
@testable import NimbusServer
import Testing

/// A data folder whose `nimbus.sqlite` is damaged, empty, another application's or written
/// by a newer server is refused at start with a message naming the file, and left byte for
/// byte as it was (no WAL switch, no migrations table).
@Suite("Damaged, empty, foreign and newer databases are refused and left untouched", .stopsServers)
struct DatabaseRefusalTests {
    /// A fresh data folder.
    static func folder() throws -> String {
        let directory = NSTemporaryDirectory() + "nimbus-refusal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A sound server database with one user and a token, closed (its WAL checkpointed).
    static func nimbusDatabase(in directory: String) async throws {
        let storage = try SQLiteStorage(path: directory + "/nimbus.sqlite")
        try await storage.migrate()
        let admin = AccountAdmin(storage: storage)
        _ = try await admin.addUser(name: "alice")
        _ = try await admin.createToken(userName: "alice", device: "phone")
        try await storage.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try storage.pool.close()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/nimbus.sqlite" + suffix) }
    }

    /// The kinds of bad file, each written into a data folder, with a word the refusal says.
    static let kinds = ["empty", "random bytes", "damaged pages", "foreign", "newer"]

    static func write(_ kind: String, in directory: String) async throws {
        let path = directory + "/nimbus.sqlite"
        switch kind {
        case "empty":
            FileManager.default.createFile(atPath: path, contents: Data())
        case "random bytes":
            FileManager.default.createFile(atPath: path, contents: Data((0..<16_384).map { _ in UInt8.random(in: 0...255) }))
        case "damaged pages":
            try await nimbusDatabase(in: directory)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // Keep the header page; overwrite the rest (the schema's tables and rows).
            for index in 4096..<bytes.count { bytes[index] = UInt8.random(in: 0...255) }
            try bytes.write(to: URL(fileURLWithPath: path))
        case "foreign":
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('hi')") }
            try queue.close()
        case "newer":
            try await nimbusDatabase(in: directory)
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('v99-from-the-future')") }
            try queue.close()
        default:
            Issue.record("unknown kind \(kind)")
        }
    }

    /// Every file of the folder with its bytes.
    static func snapshot(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name != "nimbus.lock" {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
            files[name] = isDirectory.boolValue ? Data("<folder>".utf8) : try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    /// Whether the folder holds what it held: the same files with the same bytes, plus at
    /// most the shared-memory index and an empty WAL that SQLite creates to read a WAL-mode
    /// file (a read, not a change).
    static func unchanged(_ before: [String: Data], _ after: [String: Data]) -> Bool {
        for (name, bytes) in before where after[name] != bytes { return false }
        for (name, bytes) in after where before[name] == nil {
            guard name == "nimbus.sqlite-shm" || (name == "nimbus.sqlite-wal" && bytes.isEmpty) else { return false }
        }
        return true
    }

    @Test("the server refuses to start on the file, naming it, and changes nothing", arguments: kinds)
    func serverRefuses(_ kind: String) async throws {
        let directory = try Self.folder()
        try await Self.write(kind, in: directory)
        let before = try Self.snapshot(directory)
        let error = await #expect(throws: SQLiteDatabaseCheck.RefusedError.self) {
            _ = try await TestServer.start(.sqlite, dataDirectory: directory)
        }
        #expect(error?.path == directory + "/nimbus.sqlite")
        #expect(error?.description.contains(directory + "/nimbus.sqlite") == true)
        #expect(Self.unchanged(before, try Self.snapshot(directory)), "the refused file was changed")
    }

    @Test("`nimbus users add` refuses the file and writes nothing into it", arguments: ["empty", "damaged pages", "foreign", "newer"])
    func usersAddRefuses(_ kind: String) async throws {
        let directory = try Self.folder()
        try await Self.write(kind, in: directory)
        let before = try Self.snapshot(directory)
        let result = try NimbusCLI.run(["users", "add", "mallory", "--data-dir", directory])
        #expect(result.status != 0)
        #expect(result.error.contains(directory + "/nimbus.sqlite"), "\(result.error)")
        #expect(Self.unchanged(before, try Self.snapshot(directory)))
    }

    @Test("a sound database and a new folder start; `nimbus serve --check` reports a value of the wrong type and refuses to serve")
    func check() async throws {
        let directory = try Self.folder()
        try await Self.nimbusDatabase(in: directory)
        let path = directory + "/nimbus.sqlite"
        #expect(try SQLiteDatabaseCheck.verify(path: path) == [])
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "UPDATE tokens SET expires_at = 'soon'") }
        try queue.close()
        #expect(try SQLiteDatabaseCheck.verify(path: path) == ["tokens.expires_at: 1 row holds text, expected integer"])
        let result = try NimbusCLI.run(["serve", "--check", "--data-dir", directory, "--port", "0"])
        #expect(result.status != 0)
        #expect(result.error.contains("tokens.expires_at"), "\(result.error)")
    }
}
