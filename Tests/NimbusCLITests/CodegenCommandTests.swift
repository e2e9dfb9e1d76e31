import Foundation
import Testing

@Suite("nimbus codegen")
struct CodegenCommandTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func files(in folder: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.contains("+Managed") {
            files[name] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        return files
    }

    @Test("writes the checked-in fixture's files, in both styles", arguments: [
        ("NimbusTests/Fixtures/Posts.xcdatamodeld", "class", "Class"),
        ("NimbusCodegenTests/Fixtures/Library.json", "extension", "Extension"),
    ])
    func writesFixture(model: String, style: String, fixture: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CLIRunner(directory: folder).run([
            "codegen", Self.tests.appendingPathComponent(model).path, "--output", folder.appendingPathComponent("out").path,
            "--style", style,
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let written = try files(in: folder.appendingPathComponent("out"))
        let expected = try files(in: Self.tests.appendingPathComponent("NimbusCodegenFixture/\(fixture)"))
        #expect(!written.isEmpty)
        #expect(written == expected)
    }

    @Test("an unknown style or an unreadable model is an error that writes nothing")
    func badInput() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runner = CLIRunner(directory: folder)
        let model = Self.tests.appendingPathComponent("NimbusCodegenTests/Fixtures/Library.json").path
        let badStyle = try runner.run(["codegen", model, "--output", "out", "--style", "category"])
        #expect(badStyle.status != 0)
        #expect(badStyle.stderr.contains("unknown style category: use class or extension"))
        let missing = try runner.run(["codegen", folder.appendingPathComponent("Missing.xcdatamodeld").path, "--output", "out"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("Missing.xcdatamodeld"))
        let broken = folder.appendingPathComponent("Broken.json")
        try Data("{\"entities\": [{\"name\": \"A\", \"attributes\": [{\"name\": \"x\", \"type\": \"money\"}]}]}".utf8).write(to: broken)
        let invalid = try runner.run(["codegen", broken.path, "--output", "out"])
        #expect(invalid.status != 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
    }
}
