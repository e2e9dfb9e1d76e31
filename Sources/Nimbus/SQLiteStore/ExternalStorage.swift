import Foundation

/// Where Core Data keeps binary values stored outside the row
/// (`allowsExternalBinaryDataStorage`): `.<store name>_SUPPORT/_EXTERNAL_DATA/` beside the
/// store file.
enum ExternalStorage {
    /// The store's support folder, `.<store name>_SUPPORT` beside it.
    static func folder(for storeURL: URL) -> URL {
        let name = storeURL.deletingPathExtension().lastPathComponent
        return storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
    }

    /// The folder of external values, `_EXTERNAL_DATA` in the support folder.
    static func dataFolder(for storeURL: URL) -> URL {
        folder(for: storeURL).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }
}

extension ExternalStorage {
    /// Values of at least this many bytes go to a file; smaller ones stay in the row.
    static let threshold = 100 * 1024
    /// The first byte of a stored value: the bytes follow (inline) or a file's name does.
    static let inlineMarker: UInt8 = 0x01
    static let fileMarker: UInt8 = 0x02

    /// The stored form of a value of an attribute that allows external storage, writing the
    /// file when the value is large. Returns the file's name when one was written.
    static func encode(_ value: PropertyValue, folder: URL) throws -> (PropertyValue, file: String?) {
        guard case let .data(bytes) = value else { return (value, nil) }
        guard bytes.count >= threshold else { return (.data(Data([inlineMarker]) + bytes), nil) }
        let name = UUID().uuidString
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try bytes.write(to: folder.appendingPathComponent(name), options: .atomic)
        } catch {
            throw NimbusError(.io, "cannot write the external data file \(folder.appendingPathComponent(name).path): \(error.localizedDescription)")
        }
        return (.data(Data([fileMarker]) + Data(name.utf8) + Data([0])), name)
    }

    /// The file a stored value names, if it names one.
    static func fileName(in stored: Data) -> String? {
        guard stored.first == fileMarker else { return nil }
        let name = stored.dropFirst().prefix { $0 != 0 }
        return String(decoding: name, as: UTF8.self)
    }

    /// The value a stored one holds: the bytes after an inline marker, or the named file's
    /// contents. Bytes without a marker (written before the attribute allowed external
    /// storage) are returned as they are.
    static func decode(_ stored: PropertyValue, folder: URL, owner: @autoclosure () -> String) throws(NimbusError) -> PropertyValue {
        guard case let .data(bytes) = stored, let first = bytes.first else { return stored }
        if first == inlineMarker { return .data(bytes.dropFirst()) }
        guard first == fileMarker, let name = fileName(in: bytes) else { return stored }
        let url = folder.appendingPathComponent(name)
        do {
            return .data(try Data(contentsOf: url))
        } catch {
            throw NimbusError(.corruptStore, "\(owner()) names the external data file \(url.path), which cannot be read (\(error.localizedDescription)); restore the store's support folder with the store")
        }
    }

    /// The attributes of an entity whose values may live in files (binary data and
    /// transformables with `allowsExternalBinaryDataStorage`), by property index.
    static func indexes(of entity: EntityDescription) -> [Int] {
        entity.properties.indices.filter { index in
            guard let attribute = entity.properties[index].attribute, !attribute.isTransient else { return false }
            return attribute.allowsExternalBinaryDataStorage && (attribute.type == .binaryData || attribute.type == .transformable)
        }
    }

    /// Removes files, ignoring ones already gone.
    static func remove(_ names: some Sequence<String>, folder: URL) {
        for name in names where !name.isEmpty && !name.contains("/") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
