import ArgumentParser

@main
struct NimbusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nimbus",
        abstract: "Core Data's object graph and a self-hostable sync server.",
        subcommands: [Demo.self, Serve.self, DeviceCommand.self, StoreCommand.self, Users.self, Tokens.self, BenchServer.self, BenchSync.self, Codegen.self,
                      ExitCodes.self]
    )
}
