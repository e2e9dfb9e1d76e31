import ArgumentParser
import Logging
import NimbusServer

extension NimbusCommand {
    /// `nimbus users …`: manages the server's user accounts.
    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage users of the sync server.",
            subcommands: [Add.self])

        /// `nimbus users add NAME`.
        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a user.",
                discussion: "Example: nimbus users add alice --data-dir ./data\nAn administrator (--admin) signs in to the console at /console with a token of theirs.")

            @OptionGroup var storage: StorageOptions

            @Argument(help: "The user's name.")
            var name: String

            @Option(name: .customLong("quota-bytes"), help: "The user's storage quota; the server's default when omitted.")
            var quotaBytes: Int64?

            @Flag(name: .customLong("admin"), help: "Make the user an administrator of the console (SQLite storage).")
            var administrator = false

            func validate() throws {
                if let quotaBytes, !(0...ServerConfiguration.largestQuotaBytes).contains(quotaBytes) {
                    throw ValidationError("--quota-bytes \(quotaBytes) is out of range: it must be between 0 and \(ServerConfiguration.largestQuotaBytes).")
                }
            }

            func run() async throws {
                try await reportingErrors {
                    let user = try await ServerAdministration.addUser(
                        configuration: storage.configuration(), name: name, quotaBytes: quotaBytes, administrator: administrator)
                    print("added \(administrator ? "administrator" : "user") \(user.name) (id \(user.id))")
                }
            }
        }
    }

    /// `nimbus tokens …`: manages device tokens.
    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage device tokens.",
            subcommands: [Create.self, Revoke.self])

        /// `nimbus tokens create --user NAME --device ID`.
        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Create a bearer token for one device of a user and print it (it is stored only as a hash).",
                discussion: "Example: nimbus tokens create --user alice --device phone --data-dir ./data")

            @OptionGroup var storage: StorageOptions

            @Option(help: "The user.")
            var user: String

            @Option(help: "The device's id, stamped on what it saves.")
            var device: String

            @Option(name: .customLong("expires-in"), help: "Seconds until the token expires; never when omitted.")
            var expiresIn: Int64?

            func validate() throws {
                if let expiresIn, !(1...ServerConfiguration.longestSeconds).contains(expiresIn) {
                    throw ValidationError("--expires-in \(expiresIn) is out of range: it must be between 1 and \(ServerConfiguration.longestSeconds) seconds (100 years).")
                }
            }

            func run() async throws {
                try await reportingErrors {
                    let token = try await ServerAdministration.createToken(
                        configuration: storage.configuration(), userName: user, device: device, expiresInSeconds: expiresIn)
                    print(token)
                }
            }
        }

        /// `nimbus tokens revoke --user NAME [--device ID]`.
        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a user's tokens (all, or one device's).")

            @OptionGroup var storage: StorageOptions

            @Option(help: "The user.")
            var user: String

            @Option(help: "Only this device's tokens.")
            var device: String?

            func run() async throws {
                try await reportingErrors {
                    let count = try await ServerAdministration.revokeTokens(
                        configuration: storage.configuration(), userName: user, device: device)
                    print("revoked \(count) token(s)")
                }
            }
        }
    }
}
