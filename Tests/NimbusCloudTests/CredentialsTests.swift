import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

/// Issue 24, item 2: a new token of the same user is swapped in place, a refused token is an
/// account event and never a loss, the token file is its owner's only, and plain http to
/// another machine is refused unless allowed.
@Suite("Credentials: new tokens, refused tokens, the token file, plain http", .serialized)
struct CredentialsTests {
    static func run(_ arguments: String...) throws {
        try SyncServer.check(SyncServer.run(Array(arguments)))
    }

    static func titles(_ directory: String) throws -> [String] {
        let result = try SyncServer.run(["store", "fetch", directory, "Post", "--json"])
        try SyncServer.check(result)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        return objects.compactMap { $0["title"] as? String }.sorted()
    }

    static func pending(_ directory: String) throws -> Int {
        let result = try SyncServer.run(["device", "status", directory, "--json"])
        try SyncServer.check(result)
        let stores = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        return stores.reduce(0) { $0 + ($1["pendingUploads"] as? Int ?? 0) }
    }

    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    /// Every file under a folder with its inode, to tell "the same file" from "a file made again".
    static func files(_ directory: String) throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory))
        for case let path as String in enumerator where path.hasSuffix(".sqlite") {
            var info = stat()
            stat(directory + "/" + path, &info)
            result[path] = UInt64(info.st_ino)
        }
        return result
    }

    static func devices(_ server: SyncServer, count: Int = 2) throws -> [String] {
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        return try (0..<count).map { index in
            let directory = server.folder.url.appendingPathComponent("device\(index)").path
            try run("device", "init", directory, "--server", server.url.absoluteString, "--token", server.tokens[index], "--model", model.path)
            return directory
        }
    }

    @Test("device login with a new token of the same user swaps it in place: same store files, unsent edits kept and sent with the new token")
    func newTokenSameUser() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let devices = try Self.devices(server)
        let (a, b) = (devices[0], devices[1])
        try Self.run("store", "insert", a, "Post", "title=sent")
        try Self.run("device", "sync", a)
        try Self.run("store", "insert", a, "Post", "title=unsent")
        let before = try Self.files(a)

        let fresh = try server.mintToken(device: "device0-renewed")
        let login = try SyncServer.run(["device", "login", a, "--token", fresh])
        #expect(login.status == 0, "\(login.error)")
        #expect(try Self.files(a) == before)   // no store switched, no file removed or made again
        #expect(try Self.titles(a) == ["sent", "unsent"])
        // device login syncs at once (decision 0084): the unsent edit went out with the new token.
        #expect(try Self.pending(a) == 0)

        // The old token is revoked: sync goes on with the new one.
        try server.revokeTokens(device: "device0")
        try Self.run("device", "sync", a)
        try Self.run("device", "sync", b)
        #expect(try Self.titles(b) == ["sent", "unsent"])
        // And sync goes on with it.
        try Self.run("store", "insert", a, "Post", "title=after the swap")
        try Self.run("device", "sync", a)
        try Self.run("device", "sync", b)
        #expect(try Self.titles(b) == ["after the swap", "sent", "unsent"])
    }

    @Test("a revoked token: device sync exits non-zero and says how to fix it; the unsent edit stays and goes out after a new token")
    func revokedTokenCLI() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let devices = try Self.devices(server)
        let (a, b) = (devices[0], devices[1])
        try Self.run("store", "insert", a, "Post", "title=written before the revocation")
        try server.revokeTokens(device: "device0")
        let refused = try SyncServer.run(["device", "sync", a])
        #expect(refused.status == 77, "a revoked token needs the user")
        #expect(refused.error.contains("notAuthenticated"), "\(refused.error)")
        #expect(refused.error.contains("nimbus device login"), "\(refused.error)")
        #expect(try Self.titles(a) == ["written before the revocation"])
        #expect(try Self.pending(a) > 0)

        try Self.run("device", "login", a, "--token", try server.mintToken(device: "device0-new"))
        try Self.run("device", "sync", a)
        #expect(try Self.pending(a) == 0)
        try Self.run("device", "sync", b)
        #expect(try Self.titles(b) == ["written before the revocation"])
    }

    @Test("a revoked token is an account event the app observes; a new token of the same user sends what waited")
    func revokedTokenEvent() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await a.container.syncNow()
        try await a.insertTag("kept")
        try server.revokeTokens(device: "device0")
        let events = a.container.events
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        let accountEvent = try await LifecycleTests.event(events) { $0.kind == .account }
        #expect(accountEvent.error?.code == .notAuthenticated)
        #expect(try await a.snapshot("Tag", key: "name").keys.sorted() == ["kept"])

        await a.container.updateToken(try server.mintToken(device: "device0-new"))
        let summary = try await a.container.syncNow()
        #expect(summary.exported == 1)
        try await b.container.syncNow()
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["kept"])
    }

    @Test("the token file is mode 0600 in a folder of mode 0700, and a looser one is tightened")
    func tokenFileMode() async throws {
        let server = try await SyncServer(devices: 1)
        defer { server.stop() }
        let a = try Self.devices(server, count: 1)[0]
        let file = a + "/account.json"
        #expect(try Self.mode(file) == 0o600)
        #expect(try Self.mode(a) == 0o700)
        try Self.run("device", "login", a, "--token", try server.mintToken(device: "device0-new"))
        #expect(try Self.mode(file) == 0o600)
        // Written by an earlier version with the default mode: tightened when next read.
        chmod(file, 0o644)
        chmod(a, 0o755)
        try Self.run("device", "status", a)
        #expect(try Self.mode(file) == 0o600)
        #expect(try Self.mode(a) == 0o700)

        // The library's provider, in a folder it makes.
        let folder = server.folder.url.appendingPathComponent("app/support")
        let provider = try SavedAccountProvider(file: folder.appendingPathComponent("account.json"))
        try provider.signIn(CloudAccount(identifier: "alice", token: "secret"))
        #expect(try Self.mode(folder.appendingPathComponent("account.json").path) == 0o600)
        #expect(try Self.mode(folder.path) == 0o700)
    }

    @Test("plain http to another machine is refused with a typed error before anything is sent or made, unless allowed",
          arguments: ["http://sync.example.com:8080", "http://192.0.2.7", "http://[fd00::7]:80", "http://0.0.0.0:1"])
    func insecureHTTPRefused(url: String) async throws {
        let options = CloudContainerOptions(serverURL: try #require(URL(string: url)), containerIdentifier: "app", token: "t")
        #expect(throws: CloudError.self) { try options.checkTransportSecurity() }
        do {
            try await HTTPTransport(options: options).checkServer()
            Issue.record("the request went out")
        } catch let error as CloudError {
            #expect(error.code == .insecureConnection, "\(error)")
        }
        var allowed = options
        allowed.allowsInsecureHTTP = true
        try allowed.checkTransportSecurity()

        let folder = try TemporaryDirectory()
        let directory = folder.url.appendingPathComponent("device").path
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let refused = try SyncServer.run(["device", "init", directory, "--server", url, "--token", "t", "--model", model.path])
        #expect(refused.status == 64, "an insecure URL is bad input")
        #expect(refused.error.contains("insecureConnection"), "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("loopback and https are allowed without opting in", arguments: [
        "http://127.0.0.1:8080", "http://localhost", "http://[::1]:9", "http://127.1.2.3", "https://sync.example.com"])
    func secureOrLoopback(url: String) throws {
        try CloudContainerOptions(serverURL: try #require(URL(string: url)), containerIdentifier: "app", token: "t").checkTransportSecurity()
    }

    @Test("a container refuses plain http to another machine at load; with --allow-insecure-http a device syncs over it")
    func insecureHTTPOptIn() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let container = CloudContainer(name: "app", managedObjectModel: try SyncModel.make())
        container.automaticallySyncs = false
        let folder = try TemporaryDirectory()
        var description = PersistentStoreDescription(url: folder.url.appendingPathComponent("Cloud.sqlite"))
        description.configuration = "Cloud"
        description.cloudContainerOptions = CloudContainerOptions(serverURL: URL(string: "http://sync.example.com")!,
                                                                  containerIdentifier: "app", token: server.tokens[0])
        container.persistentStoreDescriptions = [description]
        do {
            try await container.loadPersistentStores()
            Issue.record("the store mirrors over plain http")
        } catch let error as CloudError {
            #expect(error.code == .insecureConnection)
        }

        // 0.0.0.0 reaches this machine's server, but is not a loopback name: opting in is needed.
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let url = "http://0.0.0.0:\(server.port)"
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        try Self.run("device", "init", a, "--server", url, "--token", server.tokens[0], "--model", model.path, "--allow-insecure-http")
        try Self.run("device", "init", b, "--server", server.url.absoluteString, "--token", server.tokens[1], "--model", model.path)
        try Self.run("store", "insert", a, "Post", "title=over plain http")
        try Self.run("device", "sync", a)
        try Self.run("device", "sync", b)
        #expect(try Self.titles(b) == ["over plain http"])
        // A login on that device keeps the choice recorded in device.json.
        try Self.run("device", "login", a, "--token", try server.mintToken(device: "device0-new"))
        try Self.run("device", "sync", a)
    }
}

extension SyncServer {
    /// A new token for one more device of the server's user, made while the server runs.
    func mintToken(device: String, user: String = "alice") throws -> String {
        let result = try Self.run(["tokens", "create", "--user", user, "--device", device,
                                   "--data-dir", folder.url.appendingPathComponent("server").path])
        try Self.check(result)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Revokes the tokens of one device of the server's user.
    func revokeTokens(device: String, user: String = "alice") throws {
        try Self.check(Self.run(["tokens", "revoke", "--user", user, "--device", device,
                                 "--data-dir", folder.url.appendingPathComponent("server").path]))
    }
}
