import Foundation
import Synchronization

extension Process {
    /// Runs the process to its end and returns everything it wrote to standard output and
    /// standard error.
    ///
    /// Both pipes are drained at once (standard error on a thread of its own): reading one to
    /// its end before the other deadlocks as soon as the child fills the other pipe's buffer
    /// (64 KiB on Linux) and blocks writing to it. For example:
    ///
    /// ```swift
    /// let process = Process()
    /// process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    /// let (stdout, stderr) = try process.runCapturingOutput()
    /// ```
    public func runCapturingOutput() throws -> (stdout: Data, stderr: Data) {
        let out = Pipe(), err = Pipe()
        standardOutput = out
        standardError = err
        try run()
        let errorOutput = Mutex(Data())
        let errorRead = DispatchSemaphore(value: 0)
        let errorHandle = err.fileHandleForReading
        // A thread, not a task or a dispatch block: it blocks until the child closes the pipe.
        Thread.detachNewThread {
            let data = errorHandle.readDataToEndOfFile()
            errorOutput.withLock { $0 = data }
            errorRead.signal()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        waitUntilExit()
        return (output, errorOutput.withLock { $0 })
    }
}
