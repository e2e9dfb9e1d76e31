import Foundation
import Nimbus

/// The Posts model drawn in Xcode (`Fixtures/Posts.xcdatamodeld`), its JSON twin, and
/// helpers that write small model files for tests of bad input.
enum XcodeModelFixtures {
    static var directory: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
    }

    /// `Posts.xcdatamodeld`: versions `Posts` (identifier 1) and `Posts 2` (identifier 2, current).
    static var package: URL { directory.appendingPathComponent("Posts.xcdatamodeld") }

    /// The JSON form of `Posts 2`.
    static var json: URL { directory.appendingPathComponent("Posts.json") }

    /// A fresh empty folder; remove it with ``remove(_:)``.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("nimbus-xcode-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// A `contents` document: the XML declaration on line 1, `<model>` on line 2, `body`
    /// from line 3.
    static func document(_ body: String, modelAttributes: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier=""\(modelAttributes)>
        \(body)
        </model>
        """
    }

    /// Writes `text` as `<folder>/Model.xcdatamodel/contents` and returns the version folder.
    static func writeVersion(_ text: String, in folder: URL, name: String = "Model") throws -> URL {
        let version = folder.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: version.appendingPathComponent("contents"))
        return version
    }

    /// Loads a model whose `contents` has `body` from line 3.
    static func load(_ body: String, modelAttributes: String = "") throws -> ManagedObjectModel {
        let folder = try temporaryDirectory()
        defer { remove(folder) }
        let version = try writeVersion(document(body, modelAttributes: modelAttributes), in: folder)
        return try ManagedObjectModel(contentsOf: version)
    }

    /// `.xccurrentversion` naming `version`.
    static func currentVersionPlist(_ version: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>_XCCurrentVersionName</key>
        	<string>\(version)</string>
        </dict>
        </plist>
        """
    }
}
