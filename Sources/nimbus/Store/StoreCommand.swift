import ArgumentParser

/// `nimbus store …`: create, change, query and inspect a store from the shell.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Create, change, query and inspect a Nimbus (Core Data) SQLite store.",
        discussion: "Commands other than create read the model the store keeps, so no model is needed; for a store Apple's Core Data wrote, give the app's model with --model (inspect, fetch, history, explain) or copy it with import-coredata.",
        subcommands: [Create.self, Insert.self, Import.self, ImportCoreData.self, Fetch.self, Update.self, Delete.self, Copy.self, Destroy.self, Inspect.self, History.self, PurgeHistory.self,
                      Explain.self, Search.self, Migrate.self]
    )
}
