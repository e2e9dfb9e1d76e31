import Crypto
import Foundation

/// The envelope of every file a device writes into a shared folder (logs, baselines,
/// assets): a one-line header that names the format, the SHA-256 and length of the body,
/// and whether the body is AES-GCM sealed; then the body.
///
/// ```
/// NIMBUS-FOLDER 1 <kind> <plain|aes-gcm> <body bytes> <body sha256 hex>\n<body>
/// ```
/// A file service copies files in pieces: a file whose body is shorter than its header says,
/// or whose checksum does not match, is still arriving (``Problem/incomplete``) and is read
/// again later, never imported in part.
struct SealedFile: Sendable {
    /// What a file holds.
    enum Kind: String, Sendable { case log, baseline, asset }

    /// Why a file can't be read (yet).
    enum Problem: Error, Sendable, Equatable {
        /// Shorter than its header says, or its checksum does not match: still arriving.
        case incomplete(String)
        /// Not a Nimbus folder file, or a newer format.
        case unreadable(String)
        /// Sealed with another key (or with none where a key is expected, or the reverse).
        case wrongKey(String)
    }

    static let magic = "NIMBUS-FOLDER"
    static let version = 1

    /// The file's bytes: the header and the body, sealed with `key` when there is one.
    static func seal(_ plain: Data, kind: Kind, key: SymmetricKey?) throws -> Data {
        var body = plain
        if let key {
            guard let combined = try AES.GCM.seal(plain, using: key).combined else {
                throw CloudError(.invalidConfiguration, "AES-GCM could not seal a \(kind.rawValue) file")
            }
            body = combined
        }
        let header = "\(magic) \(version) \(kind.rawValue) \(key == nil ? "plain" : "aes-gcm") \(body.count) \(hex(SHA256.hash(data: body)))\n"
        return Data(header.utf8) + body
    }

    /// The header of a file: its kind, whether sealed, the body's length and checksum.
    struct Header: Sendable, Equatable {
        var kind: Kind
        var sealed: Bool
        var length: Int
        var checksum: String
        var headerLength: Int
    }

    /// Reads the header from the first bytes of a file.
    static func header(of data: Data) throws(Problem) -> Header {
        guard let newline = data.prefix(256).firstIndex(of: UInt8(ascii: "\n")) else {
            if data.count < 256, String(decoding: data, as: UTF8.self).hasPrefix(String(magic.prefix(data.count))) {
                throw .incomplete("the header has not fully arrived (\(data.count) bytes)")
            }
            throw .unreadable("no Nimbus folder header")
        }
        let parts = String(decoding: data[data.startIndex..<newline], as: UTF8.self).split(separator: " ").map(String.init)
        guard parts.count == 6, parts[0] == magic else { throw .unreadable("no Nimbus folder header") }
        guard parts[1] == "\(version)" else { throw .unreadable("format version \(parts[1]); this build reads version \(version)") }
        guard let kind = Kind(rawValue: parts[2]), parts[3] == "plain" || parts[3] == "aes-gcm",
              let length = Int(parts[4]), length >= 0, parts[5].count == 64 else {
            throw .unreadable("a malformed header")
        }
        return Header(kind: kind, sealed: parts[3] == "aes-gcm", length: length, checksum: parts[5],
                      headerLength: newline - data.startIndex + 1)
    }

    /// Opens a whole file: checks its length and checksum, then decrypts with `key`.
    /// - Returns: The plain body and the header.
    static func open(_ data: Data, expecting kind: Kind, key: SymmetricKey?) throws(Problem) -> (body: Data, header: Header) {
        let header = try header(of: data)
        guard header.kind == kind else { throw .unreadable("a \(header.kind.rawValue) file where a \(kind.rawValue) was expected") }
        let body = Data(data.dropFirst(header.headerLength))
        guard body.count >= header.length else { throw .incomplete("\(body.count) of \(header.length) bytes have arrived") }
        guard body.count == header.length else { throw .unreadable("\(body.count - header.length) bytes more than its header says") }
        guard hex(SHA256.hash(data: body)) == header.checksum else { throw .incomplete("its checksum does not match (still being copied?)") }
        switch (header.sealed, key) {
        case (false, nil): return (body, header)
        case (false, _?): throw .wrongKey("the file is not encrypted, and this device requires encrypted files")
        case (true, nil): throw .wrongKey("the file is encrypted, and this device has no key")
        case (true, let key?):
            do {
                return (try AES.GCM.open(AES.GCM.SealedBox(combined: body), using: key), header)
            } catch {
                throw .wrongKey("the file does not decrypt with this device's key")
            }
        }
    }

    /// Writes a file under a temporary name and renames it into place, so that no reader
    /// (nor the file service) ever sees it half written.
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)-\(url.lastPathComponent)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: temporary)
            // rename(2) replaces an existing file in one step.
            guard rename(temporary.path, url.path) == 0 else {
                throw CloudError(.network, "renaming \(temporary.lastPathComponent) failed (errno \(errno))")
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw CloudError(.network, "\(url.path) could not be written to the shared folder: \(error)")
        }
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The key of `options`, checked: 32 bytes (AES-256).
    static func key(of options: FolderSyncOptions) throws -> SymmetricKey? {
        guard let data = options.encryptionKey else { return nil }
        guard data.count == 32 else {
            throw CloudError(.invalidConfiguration, "the folder encryption key has \(data.count) bytes; AES-GCM here takes 32 (256 bits)")
        }
        return SymmetricKey(data: data)
    }
}
