import Foundation

/// Opens a store file read-only without writing a byte of it or beside it (decision 0121).
///
/// SQLite opening a file in WAL mode read-only still creates `-wal` and `-shm` files beside
/// it and may change the `-shm`. When no connection has the file open (it has no `-shm`),
/// nothing can change it under us, so SQLite is told it is immutable and touches nothing;
/// when its `-wal` holds committed pages that an immutable open would skip, the file and its
/// `-wal` are copied to a temporary folder and the copy is opened instead.
enum UntouchedOpening {
    /// Where to open the file: the path itself (a connection has it open), an `immutable=1`
    /// URI, or a copy. `copyFolder` is the temporary folder to remove when done.
    struct Target {
        var path: String
        var copyFolder: URL?
    }

    /// Whether a file is in WAL mode (its header's read and write versions are 2).
    static func isWAL(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[18] == 2 && header[19] == 2
    }

    /// The size of a file, or nil when there is none.
    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size].flatMap { ($0 as? NSNumber)?.intValue }
    }

    /// An `immutable=1` URI when that reads every committed page, else nil.
    static func immutableURI(for path: String) -> String? {
        guard size(path + "-shm") == nil, (size(path + "-wal") ?? 0) == 0 else { return nil }
        return uri(path)
    }

    /// The URI of a file opened read-only (`mode=ro`), for `ATTACH`.
    static func readOnlyURI(_ path: String) -> String {
        String(uri(path).dropLast("&immutable=1".count))
    }

    /// The URI of a file opened read-only and immutable.
    static func uri(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = url.path.addingPercentEncoding(withAllowedCharacters: allowed) ?? url.path
        return "file:\(escaped)?mode=ro&immutable=1"
    }

    /// Where to open `path` read-only leaving it untouched.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/io`` when a copy is needed and cannot be made.
    static func target(for path: String) throws -> Target {
        if size(path + "-shm") != nil { return Target(path: path) }
        if let uri = immutableURI(for: path) { return Target(path: uri) }
        // Committed pages wait in the -wal: read them from a copy.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-readonly-\(UUID().uuidString)", isDirectory: true)
        let name = URL(fileURLWithPath: path).lastPathComponent
        let copy = folder.appendingPathComponent(name).path
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw NimbusError(.io, "cannot copy \(path) and its -wal to read them without changing them: \(error.localizedDescription)", underlying: error)
        }
        return Target(path: copy, copyFolder: folder)
    }
}
