import Foundation

/// Finds the `contents` file of an Xcode model from the URL a user gives: a
/// `.xcdatamodeld` package, one `.xcdatamodel` version, or the `contents` file itself.
struct XcodeModelLocation: Sendable, Equatable {
    /// The XML file to read.
    var contentsURL: URL

    /// The key of `.xccurrentversion` that names the current version.
    static let currentVersionKey = "_XCCurrentVersionName"

    /// Resolves a URL to the `contents` file to read.
    ///
    /// A package uses the version its `.xccurrentversion` names; without that file, its
    /// only version, or the last one in numeric name order (`Posts 10` after `Posts 9`).
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/io`` when nothing exists at `url`;
    ///   ``NimbusError/Code-swift.struct/invalidModel`` when the package or folder is not a
    ///   usable Xcode model.
    static func locate(_ url: URL) throws -> XcodeModelLocation {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw NimbusError(.io, "no model at \(url.path): the file or folder does not exist")
        }
        guard isDirectory.boolValue else {
            return XcodeModelLocation(contentsURL: url)
        }
        let hasContents = FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path)
        if url.pathExtension == "xcdatamodel" || (url.pathExtension != "xcdatamodeld" && hasContents) {
            return try inVersionFolder(url)
        }
        let version = try currentVersion(in: url)
        return try inVersionFolder(url.appendingPathComponent(version))
    }

    private static func inVersionFolder(_ folder: URL) throws -> XcodeModelLocation {
        let contents = folder.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else {
            throw NimbusError(.invalidModel, "\(folder.path) has no contents file: it is not an Xcode data model, or one saved before Xcode 4; open and save it in a recent Xcode")
        }
        return XcodeModelLocation(contentsURL: contents)
    }

    /// The `.xcdatamodel` folders of a package, in numeric name order.
    static func versions(in package: URL) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: package.path)
        } catch {
            throw NimbusError(.io, "cannot list \(package.path): \(error.localizedDescription)")
        }
        return names.filter { $0.hasSuffix(".xcdatamodel") }
            .sorted { versionOrder($0, $1) }
    }

    /// Numeric order of version names without their extension: `Posts`, `Posts 2`, `Posts 10`.
    static func versionOrder(_ a: String, _ b: String) -> Bool {
        let (a, b) = (String(a.dropLast(".xcdatamodel".count)), String(b.dropLast(".xcdatamodel".count)))
        return a.compare(b, options: [.numeric]) == .orderedAscending
    }

    /// The version folder name a package's `.xccurrentversion` names, or its last version.
    static func currentVersion(in package: URL) throws -> String {
        let versions = try versions(in: package)
        let marker = package.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: marker.path) {
            let name = try currentVersionName(in: marker)
            guard versions.contains(name) else {
                let known = versions.isEmpty ? "none" : versions.joined(separator: ", ")
                throw NimbusError(.invalidModel, "\(marker.path) names the current version \(name), which the package does not contain (versions: \(known))")
            }
            return name
        }
        guard let last = versions.last else {
            throw NimbusError(.invalidModel, "\(package.path) contains no .xcdatamodel version")
        }
        return last
    }

    /// Reads `_XCCurrentVersionName` from a `.xccurrentversion` property list.
    private static func currentVersionName(in marker: URL) throws -> String {
        let plist: Any
        do {
            let data = try Data(contentsOf: marker)
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw NimbusError(.invalidModel, "\(marker.path) is not a readable property list: \(error.localizedDescription)")
        }
        guard let name = (plist as? [String: Any])?[currentVersionKey] as? String, !name.isEmpty else {
            throw NimbusError(.invalidModel, "\(marker.path) has no \(currentVersionKey) string naming the current version")
        }
        return name.hasSuffix(".xcdatamodel") ? name : name + ".xcdatamodel"
    }
}
