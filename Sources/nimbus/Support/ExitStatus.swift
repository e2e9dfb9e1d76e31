import ArgumentParser

/// What a script should do after `nimbus` exits: the documented exit codes
/// (`nimbus help exit-codes`). Every code is below 128, so a script never mistakes one for a
/// signal.
///
/// The numbers follow BSD's `sysexits.h`, and 64 is also what ArgumentParser uses for a
/// command line it cannot parse:
///
/// ```sh
/// nimbus device sync ./phone
/// case $? in 0) ;; 75) sleep 30; retry ;; 77) tell_the_user ;; *) exit 1 ;; esac
/// ```
enum ExitStatus: Int32, CaseIterable {
    /// Done.
    case success = 0
    /// The command line, a value, a file or the model given is wrong; change the input.
    case badInput = 64
    /// A failure inside Nimbus that no input explains; report it.
    case internalError = 70
    /// Nothing is wrong with the device or the input: the network failed, the server is
    /// unavailable or asked to slow down. Run the same command again later.
    case retryLater = 75
    /// A person must act before this can succeed: the device is signed out, its token was
    /// revoked, its clock is wrong, the account's quota is full, it needs a decision.
    case needsUser = 77

    /// The short name printed in the table and after an error.
    var name: String {
        switch self {
        case .success: "done"
        case .badInput: "bad input"
        case .internalError: "internal error"
        case .retryLater: "retry later"
        case .needsUser: "needs the user"
        }
    }

    /// What it covers, for the table.
    var meaning: String {
        switch self {
        case .success: "the command did what it says; device sync: in step"
        case .badInput: "wrong argument, value, file or model; nothing changed"
        case .internalError: "a bug or a damaged store; report it with the message"
        case .retryLater: "network, server unavailable, rate limited, still pending"
        case .needsUser: "signed out, token refused, clock wrong, quota full"
        }
    }

    /// The ArgumentParser exit code.
    var exitCode: ExitCode { ExitCode(rawValue) }

    /// The table `nimbus help exit-codes` prints.
    static var table: String {
        allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0))\($0.name): \($0.meaning)" }
            .joined(separator: "\n")
    }
}
