import Foundation
import Testing

/// Issue 28, item 7 (the first hour): a failed `device init` leaves nothing behind, so the
/// same command can be run again; `device login` syncs, so the account's data shows at once.
@Suite("The first hour with nimbus device", .serialized)
struct FirstHourCLITests {
    /// The repository's `Examples/Posts/Posts.xcdatamodeld`: a model drawn in Xcode that can't be mirrored.
    static let unmirrorableModel = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/Posts/Posts.xcdatamodeld")

    @Test("device init that fails after making the folder removes it (and the parents it made); the retry fails the same way")
    func failedInitLeavesNothing() async throws {
        let server = try await SyncServer(devices: 1)
        defer { server.stop() }
        let parent = server.folder.url.appendingPathComponent("new-parent")
        let folder = parent.appendingPathComponent("phone")
        let arguments = ["device", "init", folder.path, "--server", server.url.absoluteString, "--token", server.tokens[0],
                         "--model", Self.unmirrorableModel.path]
        let first = try SyncServer.run(arguments)
        #expect(first.status != 0, "the example model is not mirrorable: \(first.output)")
        #expect(!FileManager.default.fileExists(atPath: parent.path), "left behind: \(first.error)")
        let again = try SyncServer.run(arguments)
        #expect(again.status == first.status)
        #expect(again.error == first.error, "the retry fails for the same reason, not 'already a device folder'")

        // An existing folder keeps what it held, and gets nothing new.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        #expect(try SyncServer.run(arguments).status == first.status)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
    }

    @Test("device login syncs: the account's objects are there without a device sync")
    func loginSyncs() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", server.url.absoluteString,
                                                 "--token", token, "--model", model.path]))
        }
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=Hello"]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        try SyncServer.check(SyncServer.run(["device", "logout", b]))
        let login = try SyncServer.run(["device", "login", b, "--token", server.tokens[1]])
        try SyncServer.check(login)
        #expect(login.output.contains("imported"), "\(login.output)")
        #expect(try SyncServer.run(["store", "fetch", b, "Post", "--json"]).output.contains("Hello"))
    }
}
