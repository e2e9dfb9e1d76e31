import Foundation

extension DeviceFolder {
    /// What a failed `device init` must remove: the folder (and any parent folders) when the
    /// command made it, else the entries it added to an existing folder.
    struct Leftovers {
        let folder: URL
        private let existed: Bool
        private let before: Set<String>
        /// The outermost folder the command will make (`folder` or a missing parent of it).
        private let outermostMade: URL

        /// Notes what is at `folder` now, before anything is made.
        init(folder: URL) {
            let folder = folder.standardizedFileURL
            self.folder = folder
            var isDirectory: ObjCBool = false
            existed = FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && isDirectory.boolValue
            before = existed ? Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []) : []
            var outermost = folder
            while outermost.path != "/", !FileManager.default.fileExists(atPath: outermost.deletingLastPathComponent().path) {
                outermost = outermost.deletingLastPathComponent()
            }
            outermostMade = outermost
        }

        /// Removes what was made since.
        func remove() {
            guard existed else {
                try? FileManager.default.removeItem(at: outermostMade)
                return
            }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !before.contains(name) {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }
}
