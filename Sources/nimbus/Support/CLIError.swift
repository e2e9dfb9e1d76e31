import ArgumentParser
import Foundation

/// Runs a command body, turning errors into one line on stderr and the exit status of
/// their class (``ExitStatus``).
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw report(error) }
}

/// The async twin of ``reportingErrors(_:)``.
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch { throw report(error) }
}

/// Writes an error as one line on stderr and returns its exit code; ArgumentParser's own
/// errors pass through unchanged.
private func report(_ error: any Error) -> any Error {
    guard let report = ExitStatus.report(for: error) else { return error }
    FileHandle.standardError.write(Data("nimbus: \(report.line)\n".utf8))
    return report.status.exitCode
}

/// An error of the command line, in the CLI's words: bad input unless it says otherwise.
struct CLIError: Error {
    var message: String
    var status: ExitStatus
    var underlying: (any Error)?

    init(_ message: String, status: ExitStatus = .badInput, underlying: (any Error)? = nil) {
        self.message = message
        self.status = status
        self.underlying = underlying
    }
}
