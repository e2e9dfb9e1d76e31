import ArgumentParser

/// `nimbus help exit-codes` (or `nimbus exit-codes`): the exit codes scripts can act on.
struct ExitCodes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "What nimbus's exit codes mean, for scripts (also: nimbus help exit-codes).",
        discussion: """
            Every command exits with one of these codes (all below 128). An error is one line on \
            stderr: Nimbus's message first, the underlying cause after it in parentheses.

            \(ExitStatus.table)
            """)

    func run() {
        print(ExitStatus.table)
    }
}
