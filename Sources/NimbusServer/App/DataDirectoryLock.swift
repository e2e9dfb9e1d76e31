import Foundation
import NIOConcurrencyHelpers

/// An exclusive `flock` on `<data-dir>/nimbus.lock`, held while a server with SQLite storage
/// runs, so that a second server on the same directory refuses to start instead of sharing
/// the file without sharing push.
///
/// The lock belongs to the open file: it is released by ``release()``, when the lock object
/// is deinitialized, or by the kernel when the process dies, so a crash never leaves the
/// directory locked.
///
/// For example:
/// ```swift
/// let lock = try DataDirectoryLock(directory: "/var/lib/nimbus")
/// defer { lock.release() }
/// ```
package final class DataDirectoryLock: Sendable {
    /// Another process (or another server in this process) holds the directory.
    package struct LockedError: Error, CustomStringConvertible, Sendable {
        package var directory: String
        package var description: String {
            "The data directory \(directory) is in use by another nimbus server (it holds \(directory)/nimbus.lock). "
                + "Stop that server, or give this one its own --data-dir; several servers may share data only through PostgreSQL (--postgres)."
        }
    }

    private let descriptor: NIOLockedValueBox<Int32?>

    /// Takes the lock without waiting.
    /// - Parameter directory: The data directory; it must exist.
    /// - Throws: ``LockedError`` when it is held; ``DataDirectory/AccessError`` naming the lock
    ///   file when it cannot be opened.
    package init(directory: String) throws {
        let path = directory + "/nimbus.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DataDirectory.AccessError(path: path, action: "open the lock file", reason: String(cString: strerror(errno)))
        }
        _ = fchmod(fd, 0o600)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw LockedError(directory: directory) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        descriptor = NIOLockedValueBox(fd)
    }

    /// Releases the lock; later calls do nothing.
    package func release() {
        descriptor.withLockedValue { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    deinit { release() }
}
