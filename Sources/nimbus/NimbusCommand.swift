import ArgumentParser

@main
struct NimbusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nimbus",
        abstract: "Core Data's object graph and a self-hostable sync server.",
        subcommands: [Serve.self, StoreCommand.self, Users.self, Tokens.self, BenchServer.self]
    )
}
