import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How saved credentials sit on disk: the file readable and writable by its owner only
/// (mode 0600), in a folder only its owner can list and enter (mode 0700). The file is
/// written whole under a temporary name created with those permissions and renamed over the
/// old one, so that no reader ever sees a partial file and no moment leaves it readable by
/// others.
enum CredentialsFile {
    static let fileMode: mode_t = 0o600
    static let folderMode: mode_t = 0o700

    /// Writes `data` to `file` (see the type's summary).
    /// - Throws: ``CloudError`` with ``CloudError/Code-swift.struct/invalidConfiguration``
    ///   when the folder or file can't be made; the previous file is then unchanged.
    static func write(_ data: Data, to file: URL) throws {
        let folder = file.deletingLastPathComponent()
        try secureFolder(folder)
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, fileMode)
        guard descriptor >= 0 else { throw failure("create \(temporary.path)") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 { return false }
                written += result
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard ok, rename(temporary.path, file.path) == 0 else {
            let error = failure("write \(file.path)")
            unlink(temporary.path)
            throw error
        }
    }

    /// Tightens an existing credentials file (written by an earlier version) and its folder.
    static func secureExisting(_ file: URL) throws {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        try secureFolder(file.deletingLastPathComponent())
        guard chmod(file.path, fileMode) == 0 else { throw failure("restrict \(file.path) to its owner") }
    }

    private static func secureFolder(_ folder: URL) throws {
        if !FileManager.default.fileExists(atPath: folder.path) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: Int(folderMode)])
            } catch {
                throw CloudError(.invalidConfiguration, "the credentials folder \(folder.path) can't be made: \(error)")
            }
        }
        guard chmod(folder.path, folderMode) == 0 else { throw failure("restrict \(folder.path) to its owner") }
    }

    private static func failure(_ action: String) -> CloudError {
        CloudError(.invalidConfiguration, "could not \(action) for the saved credentials: \(String(cString: strerror(errno)))")
    }
}
