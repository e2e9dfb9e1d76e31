import ArgumentParser
import Foundation
import Nimbus

extension NimbusCommand {
    /// `nimbus codegen`: writes `@Managed` classes (or extensions) for a model.
    struct Codegen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write @Managed classes (or extensions) for an Xcode or JSON model.",
            discussion: """
                --style class writes one @Managed class per entity (Xcode's "Class Definition"); \
                --style extension writes extensions of classes you declare (Xcode's "Category/Extension"). \
                Files are named <Class>+Managed.swift or <Class>+ManagedProperties.swift; files of \
                entities no longer in the model are left alone.
                Example: nimbus codegen Posts.xcdatamodeld --output Sources/App/Model
                """)

        @Argument(help: "The model: a .xcdatamodeld package, a .xcdatamodel folder, or a .json model.")
        var model: String

        @Option(help: "The folder to write into (made if missing).")
        var output: String

        @Option(help: "class or extension.")
        var style: String = "class"

        func run() throws {
            try reportingErrors {
                guard let style = ManagedCodeGenerator.Style(rawValue: style) else {
                    throw ValidationError("unknown style \(style): use class or extension")
                }
                let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
                let folder = URL(fileURLWithPath: output, isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for file in ManagedCodeGenerator(style: style).files(for: model) {
                    try file.contents.write(to: folder.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
                    print("wrote \(folder.appendingPathComponent(file.name).path)")
                }
                for note in model.unsupportedFeatures { print("note: \(note)") }
            }
        }
    }
}
