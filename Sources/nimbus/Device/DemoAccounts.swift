import ArgumentParser
import Foundation
import Nimbus
import NimbusCloud

/// `nimbus demo --accounts`: a device signs out with an edit not yet sent, works without an
/// account, switches to another account and back; nothing is lost and accounts never mix.
struct DemoAccounts {
    let folder: URL
    let server: URL
    let model: ManagedObjectModel
    let adaToken: String
    let graceToken: String
    let laptop: DemoDevice
    let step: StepPrinter

    func run() async throws {
        step("— accounts —")
        let accounts = try SavedAccountProvider(file: nil)
        let ada = try await CloudAccount.verify(token: adaToken, server: server, containerIdentifier: "com.example.posts")
        let grace = try await CloudAccount.verify(token: graceToken, server: server, containerIdentifier: "com.example.posts")
        try accounts.signIn(ada)
        let tablet = CloudContainer(name: "tablet", managedObjectModel: model)
        tablet.automaticallySyncs = false
        tablet.accountProvider = accounts
        tablet.setsUpAccountStoresAsynchronously = false
        let directory = folder.appendingPathComponent("tablet")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var cloud = PersistentStoreDescription(url: directory.appendingPathComponent("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        cloud.cloudContainerOptions = CloudContainerOptions(serverURL: server, containerIdentifier: "com.example.posts", token: "")
        tablet.persistentStoreDescriptions = [cloud]
        let observer = NotificationCenter.default.addObserver(forName: CloudContainer.storesDidChangeNotification, object: tablet, queue: nil) { [step] _ in
            step("  tablet: stores changed (account: \(tablet.loadedAccountIdentifier ?? "none, local storage"))")
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try await tablet.loadPersistentStores()
        try await tablet.syncNow()
        step("tablet: signed in as \(ada.identifier): \(try await titles(tablet))")

        try await save(tablet, "Unsent from the tablet")
        step("tablet: wrote a post and signs out before it is sent")
        try accounts.signOut()
        try await tablet.switchAccount(to: nil)
        step("tablet (no account): \(try await titles(tablet)) — ada's data left the device, her unsent post is kept for her return")
        try await save(tablet, "A note without an account")
        step("tablet: wrote a note without an account")

        try accounts.signIn(grace)
        try await tablet.switchAccount(to: grace)
        try await tablet.syncNow()
        step("tablet: signed in as \(grace.identifier) (the note moved into her account): \(try await titles(tablet))")

        try accounts.signIn(ada)
        try await tablet.switchAccount(to: ada)
        try await tablet.syncNow()
        try await laptop.sync()
        let onTablet = try await titles(tablet)
        let onLaptop = try await titles(laptop.container)
        step("tablet, back as \(ada.identifier): \(onTablet)")
        step("laptop (\(ada.identifier)): \(onLaptop)")
        guard onTablet == onLaptop, onTablet.contains("Unsent from the tablet"), !onTablet.contains("A note without an account") else {
            step("accounts: the replicas differ or mixed accounts")
            throw ExitStatus.internalError.exitCode
        }
        step("accounts: the post written before signing out reached ada's other devices; grace's note stayed in her account")
        await tablet.stopSyncing()
    }

    private func save(_ container: CloudContainer, _ title: String) async throws {
        let context = container.newBackgroundContext()
        try await context.perform {
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue(title, forKey: "title")
            try context.save()
        }
    }

    private func titles(_ container: PersistentContainer) async throws -> [String] {
        let context = container.newBackgroundContext()
        return try await context.perform {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
    }
}
