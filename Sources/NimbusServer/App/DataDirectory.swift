import Foundation

/// The server's data folder kept private whatever the umask: the folder `0700`, the SQLite
/// files (`nimbus.sqlite` and its `-wal` and `-shm`) and `nimbus.lock` `0600`.
///
/// The folder is made private before any file is created in it, so a file SQLite creates
/// with the umask's permissions is never reachable by other users before it is tightened.
///
/// For example:
/// ```swift
/// try DataDirectory.prepare("/var/lib/nimbus")
/// // … open the storage …
/// try DataDirectory.restrictFiles(in: "/var/lib/nimbus")
/// ```
package enum DataDirectory {
    /// A file-system failure on a path of the data folder.
    package struct AccessError: Error, CustomStringConvertible, Sendable {
        /// The path.
        package var path: String
        /// What failed.
        package var action: String
        /// The system's reason.
        package var reason: String

        package var description: String {
            "Cannot \(action) \(path): \(reason). Check that the server's user owns the data folder (--data-dir)."
        }
    }

    /// The files of the folder made `0600`.
    static let privateFiles = ["nimbus.sqlite", "nimbus.sqlite-wal", "nimbus.sqlite-shm", "nimbus.lock"]

    /// Creates the folder if needed and makes it `0700`.
    /// - Throws: ``AccessError`` naming the folder.
    package static func prepare(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AccessError(path: path, action: "create the data folder", reason: reason(error))
        }
        try restrict(path, to: 0o700)
    }

    /// Makes the SQLite files and the lock file that exist `0600`.
    /// - Throws: ``AccessError`` naming the file.
    package static func restrictFiles(in directory: String) throws {
        for name in privateFiles where FileManager.default.fileExists(atPath: directory + "/" + name) {
            try restrict(directory + "/" + name, to: 0o600)
        }
    }

    /// Sets a path's permission bits.
    package static func restrict(_ path: String, to mode: mode_t) throws {
        guard chmod(path, mode) == 0 else {
            throw AccessError(path: path, action: "set the permissions of", reason: String(cString: strerror(errno)))
        }
    }

    private static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription
    }
}
