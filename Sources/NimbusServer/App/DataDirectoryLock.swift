import Foundation
import NIOConcurrencyHelpers

/// An exclusive `flock` on the data folder and on `<data-dir>/nimbus.lock`, held while a server with SQLite storage
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

    /// The locked descriptors: the folder's, then the lock file's.
    private let descriptors: NIOLockedValueBox<[Int32]>

    /// Takes the lock without waiting.
    /// - Parameter directory: The data directory; it must exist.
    /// - Throws: ``LockedError`` when it is held; ``DataDirectory/AccessError`` naming the lock
    ///   file when it cannot be opened.
    package init(directory: String) throws {
        // The folder itself first: deleting `nimbus.lock` under a running server must not let
        // a second one start. The file too, for servers of earlier versions, which lock only it.
        let folder = try Self.lock(directory, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, what: "open the data folder", directory: directory)
        let path = directory + "/nimbus.lock"
        let file: Int32
        do {
            file = try Self.lock(path, flags: O_RDWR | O_CREAT | O_CLOEXEC, what: "open the lock file", directory: directory)
        } catch {
            close(folder)
            throw error
        }
        _ = fchmod(file, 0o600)
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(file, 0)
        _ = pid.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        descriptors = NIOLockedValueBox([folder, file])
    }

    /// Opens `path` and takes an exclusive `flock` on it without waiting.
    private static func lock(_ path: String, flags: Int32, what: String, directory: String) throws -> Int32 {
        let fd = open(path, flags, 0o600)
        guard fd >= 0 else {
            throw DataDirectory.AccessError(path: path, action: what, reason: String(cString: strerror(errno)))
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw LockedError(directory: directory) }
            throw DataDirectory.AccessError(path: path, action: "lock", reason: String(cString: strerror(code)))
        }
        return fd
    }

    /// Releases the lock; later calls do nothing.
    package func release() {
        descriptors.withLockedValue { fds in
            for fd in fds { close(fd) }
            fds = []
        }
    }

    deinit { release() }
}
