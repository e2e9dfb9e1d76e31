import Foundation
import Testing

/// `nimbus users` and `nimbus tokens` exit with the documented codes (`nimbus help
/// exit-codes`), their errors one line in Nimbus's words.
@Suite("Server administration: exit codes")
struct AdminExitCodeTests {
    @Test("an unknown user and a damaged database are bad input (64), said in one line")
    func badInput() throws {
        let directory = NSTemporaryDirectory() + "nimbus-admin-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let added = try NimbusCLI.run(["users", "add", "alice", "--data-dir", directory])
        #expect(added.status == 0, "\(added.error)")
        let unknown = try NimbusCLI.run(["tokens", "create", "--user", "nobody", "--device", "phone", "--data-dir", directory])
        #expect(unknown.status == 64)
        #expect(unknown.error.hasPrefix("nimbus: unknownItem: No user named 'nobody'"), "\(unknown.error)")
        #expect(!unknown.error.contains("Error:"), "\(unknown.error)")

        let damaged = NSTemporaryDirectory() + "nimbus-admin-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: damaged + "/nimbus.sqlite", contents: Data())
        let refused = try NimbusCLI.run(["users", "add", "eve", "--data-dir", damaged])
        #expect(refused.status == 64)
        #expect(refused.error.contains(damaged + "/nimbus.sqlite"), "\(refused.error)")
    }
}
