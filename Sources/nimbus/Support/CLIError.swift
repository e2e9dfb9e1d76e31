import ArgumentParser
import Foundation
import Nimbus
import NimbusCloud

/// Runs a command body, turning errors into one line on stderr and exit status 1.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as NimbusError {
        FileHandle.standardError.write(Data("nimbus: \(error.code): \(error.message)\n".utf8))
        throw ExitCode(1)
    } catch let error as CloudError {
        FileHandle.standardError.write(Data("nimbus: \(error.code): \(error.message)\n".utf8))
        throw ExitCode(1)
    } catch let error as CLIError {
        FileHandle.standardError.write(Data("nimbus: \(error.message)\n".utf8))
        throw ExitCode(1)
    }
}

/// A command-line usage error with a message for the user.
struct CLIError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
