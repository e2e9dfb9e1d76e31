import Foundation
@testable import NimbusServer
import Testing

/// The server's data folder is `0700` and its database and lock files `0600`, whatever the
/// umask, for a new folder and for one that was readable by others.
@Suite("The data folder is private", .stopsServers)
struct DataDirectoryPermissionTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("a new folder, and an old one left 0755 with a 0644 database, are made 0700 and 0600")
    func privateFolder() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-perm-\(UUID().uuidString)"
        let server = try await TestServer.start(.sqlite, dataDirectory: directory)
        _ = try await server.user("alice")
        #expect(try Self.mode(directory) == 0o700)
        for name in ["nimbus.sqlite", "nimbus.sqlite-wal", "nimbus.sqlite-shm", "nimbus.lock"] {
            #expect(try Self.mode(directory + "/" + name) == 0o600, "\(name)")
        }
        await server.stop()

        // A folder an older server (or a wide umask) left open to others.
        chmod(directory, 0o755)
        chmod(directory + "/nimbus.sqlite", 0o644)
        chmod(directory + "/nimbus.lock", 0o666)
        let again = try await TestServer.start(.sqlite, dataDirectory: directory)
        #expect(try Self.mode(directory) == 0o700)
        #expect(try Self.mode(directory + "/nimbus.sqlite") == 0o600)
        #expect(try Self.mode(directory + "/nimbus.lock") == 0o600)
        await again.stop()
    }

    @Test("a data folder that cannot be created is refused with its path")
    func unwritableParent() async throws {
        let parent = NSTemporaryDirectory() + "nimbus-perm-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: parent, contents: Data("a file, not a folder".utf8))
        let error = await #expect(throws: DataDirectory.AccessError.self) {
            _ = try await TestServer.start(.sqlite, dataDirectory: parent + "/data")
        }
        #expect(error?.description.contains(parent + "/data") == true)
    }
}
