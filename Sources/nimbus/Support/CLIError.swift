import ArgumentParser
import Foundation
import Nimbus
import NimbusCloud

/// Runs a command body, turning errors into one line on stderr and exit status 1.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw report(error) }
}

/// The async twin of ``reportingErrors(_:)``.
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch { throw report(error) }
}

/// Writes a known error as one line on stderr and returns exit status 1; other errors
/// pass through unchanged.
private func report(_ error: any Error) -> any Error {
    let line: String
    switch error {
    case let error as NimbusError: line = "\(error.code): \(error.message)"
    case let error as CloudError where error.code == .notAuthenticated:
        line = "\(error.code): \(error.message). Nothing saved on this device is lost: give it a new token "
            + "(nimbus device login <device-folder> --token <new token>) and the next sync sends its unsent edits"
    case let error as CloudError: line = "\(error.code): \(error.message)"
    case let error as CLIError: line = error.message
    default: return error
    }
    FileHandle.standardError.write(Data("nimbus: \(line)\n".utf8))
    return ExitCode(1)
}

/// A command-line usage error with a message for the user.
struct CLIError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
