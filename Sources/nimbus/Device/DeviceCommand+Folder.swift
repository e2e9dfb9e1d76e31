import Foundation
import Nimbus
import NimbusCloud
import NimbusWire

extension DeviceCommand.Init {
    /// `nimbus device init <dir> --folder <shared> --model M`: a device that syncs through a
    /// shared folder (made when missing), with no server and no account.
    func initFolderDevice(_ shared: String) async throws {
        let folder = URL(fileURLWithPath: directory)
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("device.json").path) {
            throw CLIError("\(directory) is already a device folder")
        }
        let sharedURL = URL(fileURLWithPath: shared).standardizedFileURL
        guard !sharedURL.path.hasPrefix(folder.standardizedFileURL.path + "/") else {
            throw CLIError("the shared folder must not lie inside the device folder \(directory)")
        }
        if let folderKeyFile {
            guard DeviceFolder.folderKey(at: folderKeyFile) != nil else {
                throw CLIError("--folder-key-file \(folderKeyFile) must hold a 32-byte key (32 bytes, or 64 hexadecimal digits)")
            }
        }
        let managedObjectModel = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
        let locals = localConfigurations.isEmpty ? managedObjectModel.configurations.keys.filter { $0.lowercased() == "local" } : localConfigurations
        let cleanup = DeviceFolder.Leftovers(folder: folder)
        let status: [StoreSyncStatus]
        let device: DeviceFolder
        do {
            try FileManager.default.createDirectory(at: sharedURL, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(managedObjectModel).write(to: folder.appendingPathComponent("model.json"))
            var configuration = DeviceFolder.Configuration(server: sharedURL, container: container, database: .private,
                                                           localConfigurations: Array(locals).sorted())
            configuration.folder = sharedURL.path
            configuration.folderKeyFile = folderKeyFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            try encoder.encode(configuration).write(to: folder.appendingPathComponent("device.json"))
            device = try DeviceFolder(path: directory)
            status = try device.openContainer().syncStatus()
        } catch {
            cleanup.remove()
            throw error
        }
        if json { print(try StatusJSON.encode(status)) } else {
            print("device \(directory): \(status.count) mirrored store(s) syncing through \(sharedURL.path), "
                + "\(device.descriptions.count - status.count) local")
        }
    }
}

extension DeviceFolder {
    /// The key in a key file: 32 bytes, or 64 hexadecimal digits (and a newline); `nil` when
    /// the file can't be read or holds something else (the sync then fails on the first
    /// encrypted file with a clear error).
    static func folderKey(at path: String) -> Data? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        if data.count == 32 { return data }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }
}
