import Foundation
import Testing

/// Every subcommand's `--help`, found by walking the SUBCOMMANDS lists from `nimbus --help`.
@Suite("nimbus help")
struct HelpTests {
    let cli = CLIRunner(directory: FileManager.default.temporaryDirectory)

    /// The subcommand names a help text lists.
    static func subcommands(in help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        var names: [String] = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            guard let match = line.wholeMatch(of: #/  ([a-z][a-z0-9-]*)(\s.*)?/#) else { continue }
            names.append(String(match.1))
        }
        return names
    }

    @Test("every subcommand's --help exits 0 and prints its usage")
    func everySubcommand() throws {
        var queue: [[String]] = [[]]
        var visited = 0
        while let path = queue.popLast() {
            let output = try cli.run(path + ["--help"])
            #expect(output.status == 0, "\(path): \(output.stderr)")
            #expect(output.stdout.contains("USAGE:"), "\(path): \(output.stdout)")
            if !path.isEmpty {
                let help = try cli.run(["help"] + path)
                #expect(help.status == 0 && help.stdout.contains("USAGE:"), "help \(path): \(help.stderr)")
            }
            visited += 1
            queue += Self.subcommands(in: output.stdout).filter { $0 != "help" }.map { path + [$0] }
        }
        #expect(visited >= 34, "walked \(visited) commands")
    }

    @Test("help device login says edits made while signed out move in on every sign-in")
    func login() throws {
        let output = try cli.run(["help", "device", "login"])
        #expect(output.status == 0)
        #expect(!output.stdout.contains("first sign-in"), "\(output.stdout)")
        #expect(output.stdout.contains("Every sign-in moves what the device saved while signed out"), "\(output.stdout)")
    }
}
