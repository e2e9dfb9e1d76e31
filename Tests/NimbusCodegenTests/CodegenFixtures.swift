import Foundation
import Nimbus

/// Where the models and the checked-in generated code live in the source tree.
enum CodegenFixtures {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    /// The Xcode model of the test suites (several entities, a hierarchy, configurations).
    static let postsModel = testsFolder.appendingPathComponent("NimbusTests/Fixtures/Posts.xcdatamodeld")
    /// A JSON model for the extension style.
    static let libraryModel = testsFolder.appendingPathComponent("NimbusCodegenTests/Fixtures/Library.json")
    static let fixtureFolder = testsFolder.appendingPathComponent("NimbusCodegenFixture")

    /// The checked-in files of a style, by name.
    static func checkedIn(_ style: ManagedCodeGenerator.Style) throws -> [String: String] {
        let folder = fixtureFolder.appendingPathComponent(style == .classDefinition ? "Class" : "Extension")
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.contains("+Managed") {
            files[name] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        return files
    }

    /// The model each style's fixture was generated from.
    static func model(for style: ManagedCodeGenerator.Style) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: style == .classDefinition ? postsModel : libraryModel)
    }
}
