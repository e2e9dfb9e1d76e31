import ArgumentParser
import Foundation
import Logging
import Nimbus
import NimbusCloud
import NimbusServer

/// `nimbus demo`: two devices converging through an embedded sync server.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Two devices sync the seeds' sample app through an embedded server, one of them offline for a while.")

    @Flag(help: "Print every sync event.") var verbose = false
    @Flag(help: "Also show accounts: a sign-out with an unsent edit, another account, and the return.") var accounts = false
    @Flag(help: "Show sharing instead: Ada shares a list with Grace (read-write) and Alan (read-only); Alan's edit is refused; Ada removes him.")
    var sharing = false
    @Flag(name: .customLong("folder"), help: "Sync through a shared folder instead of a server: no server runs, the devices exchange transaction logs.")
    var throughFolder = false

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let started = ContinuousClock.now
        let step = StepPrinter(started: started)
        if throughFolder {
            guard !sharing, !accounts else { throw CLIError("--folder shows two devices of one user: leave out --sharing and --accounts") }
            let shared = folder.appendingPathComponent("shared")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            step("no server: the devices sync through the shared folder \(shared.path)")
            let options = CloudContainerOptions(folder: shared, containerIdentifier: "com.example.posts")
            let model = try DemoModel.make()
            let phone = try DemoDevice(name: "phone", folder: folder, options: options, model: model, verbose: verbose, step: step)
            let laptop = try DemoDevice(name: "laptop", folder: folder, options: options, model: model, verbose: verbose, step: step)
            step("two devices, each with a Cloud store (Post, Tag, Attachment) and a Local store (Location)")
            try await Self.converge(phone: phone, laptop: laptop, step: step)
            await phone.close()
            await laptop.close()
            return
        }

        // 1. The server.
        var configuration = ServerConfiguration(dataDirectory: folder.appendingPathComponent("server").path, port: 0)
        configuration.host = "127.0.0.1"
        _ = try await ServerAdministration.addUser(configuration: configuration, name: "ada", quotaBytes: nil)
        _ = try await ServerAdministration.addUser(configuration: configuration, name: "grace", quotaBytes: nil)
        let graceToken = try await ServerAdministration.createToken(configuration: configuration, userName: "grace", device: "phone", expiresInSeconds: nil)
        let phoneToken = try await ServerAdministration.createToken(configuration: configuration, userName: "ada", device: "phone", expiresInSeconds: nil)
        let laptopToken = try await ServerAdministration.createToken(configuration: configuration, userName: "ada", device: "laptop", expiresInSeconds: nil)
        var sharingTokens = ["ada": phoneToken, "grace": graceToken]
        if sharing {
            _ = try await ServerAdministration.addUser(configuration: configuration, name: "alan", quotaBytes: nil)
            sharingTokens["alan"] = try await ServerAdministration.createToken(configuration: configuration, userName: "alan", device: "phone", expiresInSeconds: nil)
        }
        var logger = Logger(label: "nimbus.demo.server")
        logger.logLevel = .critical
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = try await NimbusServerApp.make(configuration: configuration, logger: logger) { portContinuation.yield($0) }
        let server = Task { try await app.runWithoutSignals() }
        defer { server.cancel() }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else { throw CLIError("the embedded server did not start") }
        let serverURL = URL(string: "http://127.0.0.1:\(port)")!
        step("an embedded sync server listens on \(serverURL.absoluteString) (SQLite in \(folder.path))")
        if sharing {
            try await DemoSharing(folder: folder, server: serverURL, tokens: sharingTokens, step: step).run()
            return
        }

        // 2. Two devices with the seeds' sample model.
        let model = try DemoModel.make()
        let phone = try DemoDevice(name: "phone", folder: folder, server: serverURL, token: phoneToken, model: model, verbose: verbose, step: step)
        let laptop = try DemoDevice(name: "laptop", folder: folder, server: serverURL, token: laptopToken, model: model, verbose: verbose, step: step)
        step("two devices, each with a Cloud store (Post, Tag, Attachment) and a Local store (Location)")
        try await Self.converge(phone: phone, laptop: laptop, step: step)
        await phone.close()
        if accounts {
            try await DemoAccounts(folder: folder, server: serverURL, model: model, adaToken: phoneToken, graceToken: graceToken,
                                   laptop: laptop, step: step).run()
        }
        await laptop.close()
    }

    /// Steps 3 to 5: the phone writes, the laptop receives, both edit (the laptop offline),
    /// and both end with the same data.
    static func converge(phone: DemoDevice, laptop: DemoDevice, step: StepPrinter) async throws {
        // 3. The phone writes and syncs; the laptop receives.
        let image = Data((0..<(2 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
        try await phone.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("Hello from the phone", forKey: "title")
            post.setValue("Written on the train.", forKey: "content")
            for name in ["swift", "sync"] {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue(name, forKey: "name")
                try post.addObjects([tag], toRelationship: "tags")
            }
            let attachment = try context.insertNewObject(forEntityName: "Attachment")
            attachment.setValue("photo.jpg", forKey: "name")
            attachment.setValue(image, forKey: "data")
            attachment.setValue(post, forKey: "post")
            let location = try context.insertNewObject(forEntityName: "Location")
            location.setValue(48.8566, forKey: "latitude")
            location.setValue(2.3522, forKey: "longitude")
        }
        step("phone: saved a post with 2 tags, a 2 MB photo attachment, and a location (Local)")
        try await phone.sync()
        try await laptop.sync()
        step("laptop: \(try await laptop.describe())")

        // 4. The laptop goes offline and edits; the phone edits too.
        step("laptop goes offline")
        try await laptop.edit { context in
            let post = try DemoDevice.post(context)
            post.setValue("Written on the train, finished on the laptop.", forKey: "content")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("offline", forKey: "name")
            try post.addObjects([tag], toRelationship: "tags")
        }
        step("laptop (offline): edited the content and added the tag 'offline'")
        try await phone.edit { context in
            let post = try DemoDevice.post(context)
            post.setValue("Hello from both devices", forKey: "title")
            let sync = try DemoDevice.tag("sync", context)
            try post.removeObjects([sync], fromRelationship: "tags")
        }
        step("phone: renamed the post and removed the tag 'sync'")
        try await phone.sync()
        step("laptop comes back online")
        try await laptop.sync()
        try await phone.sync()

        // 5. Both replicas hold the same data; Location never left the phone.
        let onPhone = try await phone.snapshot()
        let onLaptop = try await laptop.snapshot()
        step("phone:  \(try await phone.describe())")
        step("laptop: \(try await laptop.describe())")
        let phoneLocations = try await phone.count("Location")
        let laptopLocations = try await laptop.count("Location")
        step("locations: phone \(phoneLocations), laptop \(laptopLocations) (the Local configuration stays on its device)")
        guard onPhone == onLaptop, laptopLocations == 0, phoneLocations == 1 else {
            step("the replicas differ:\n  phone:  \(onPhone)\n  laptop: \(onLaptop)")
            throw ExitStatus.internalError.exitCode
        }
        step("both replicas hold the same data: the title from the phone, the content and tag from the laptop, the tag removal from the phone")
    }
}

/// Prints a step with the time since the demo started.
struct StepPrinter: Sendable {
    let started: ContinuousClock.Instant
    func callAsFunction(_ text: String) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        print(String(format: "[%6.2fs] ", Double(milliseconds) / 1000) + text)
    }
}
