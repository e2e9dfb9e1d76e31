import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Transformables kept as `NSKeyedArchiver` archives (`NSSecureUnarchiveFromData`): the
/// fixtures in `Fixtures/Archives` are laid out as Foundation's archiver writes them.
@Suite("Keyed archive transformables")
struct KeyedArchiveTransformableTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: XcodeModelFixtures.directory.appendingPathComponent("Archives/\(name).archive"))
    }

    static func decode(_ name: String, allowed: Set<String>? = ArchiveTransformers.secureClasses) throws -> Any? {
        try ArchiveTransformers.decode(try fixture(name), allowed: allowed)
    }

    @Test("strings, numbers, dates, data, arrays, dictionaries, NSNull, sets, URLs and UUIDs decode within NSSecureUnarchiveFromData's classes")
    func foundationValues() throws {
        let dictionary = try #require(try Self.decode("dictionary") as? [String: Any])
        #expect(dictionary["title"] as? String == "Hello")
        #expect(dictionary["count"] as? Int64 == 3)
        #expect(dictionary["ratio"] as? Double == 0.5)
        #expect(dictionary["flag"] as? Bool == true)
        #expect(dictionary["when"] as? Date == Date(timeIntervalSinceReferenceDate: 1000.5))
        #expect(dictionary["blob"] as? Data == Data([0, 1, 2]))
        #expect((dictionary["tags"] as? [Any])?.compactMap { $0 as? String } == ["a", "b"])
        #expect(dictionary["nothing"] is NSNull)
        #expect(try Self.decode("set") as? Set<AnyHashable> == Set<AnyHashable>(["red", "green", Int64(7)]))
        #expect(try Self.decode("url") as? URL == URL(string: "https://example.com/path?q=1"))
        #expect(try Self.decode("uuid") as? UUID == UUID(uuidString: "6A2F41A3-C54C-4F5B-8C26-1D2E3F405162"))
    }

    @Test("colors and attributed strings need a transformer that allows them; then colors are RGBA components and attributed strings their string and runs")
    func colorsAndAttributedStrings() throws {
        for name in ["uicolor", "array-of-uicolor", "attributed"] {
            let refused = try #require(throws: NimbusError.self) { try Self.decode(name) }
            #expect(refused.code == .typeMismatch && refused.message.contains("is not among the classes allowed"), "\(refused.message)")
        }
        ArchiveTransformers.register("ColorTransformer", allowedClasses: ["UIColor", "NSColor", "NSAttributedString"])
        let allowed = try #require(ArchiveTransformers.allowedClasses(for: "MyApp.ColorTransformer") ?? nil)
        #expect(try Self.decode("uicolor", allowed: allowed) as? ArchivedColor == ArchivedColor(red: 1, green: 0.5, blue: 0, alpha: 0.75))
        #expect(try Self.decode("nscolor", allowed: allowed) as? ArchivedColor == ArchivedColor(red: 0.2, green: 0.4, blue: 0.6))
        #expect((try Self.decode("array-of-uicolor", allowed: allowed) as? [Any])?.first as? ArchivedColor == ArchivedColor(red: 0, green: 0, blue: 1))

        let single = try #require(try Self.decode("attributed", allowed: allowed) as? ArchivedAttributedString)
        #expect(single.string == "Hello" && single.runs.map(\.range) == [0..<5])
        #expect(single.runs[0].attributes["NSColor"] as? ArchivedColor == ArchivedColor(red: 1, green: 0, blue: 0))
        let font = try #require(single.runs[0].attributes["NSFont"] as? ArchivedObject)
        #expect(font.className == "UIFont" && font.fields["UIFontName"] as? String == "Helvetica")
        let runs = try #require(try Self.decode("attributedRuns", allowed: allowed) as? ArchivedAttributedString)
        #expect(runs.string == "Hi there" && runs.runs.map(\.range) == [0..<2, 2..<8])
        #expect(runs.runs[0].attributes["NSLink"] as? URL == URL(string: "https://a.example"))
        #expect(runs.runs[1].attributes.isEmpty)
    }

    @Test("malformed archives are typed errors, never crashes")
    func malformed() throws {
        let good = try Self.fixture("dictionary")
        for cut in [0, 8, 40, good.count / 2, good.count - 1] {
            #expect(throws: NimbusError.self) { try ArchiveTransformers.decode(good.prefix(cut), allowed: nil) }
        }
        var flipped = [UInt8](good)
        for index in stride(from: 8, to: flipped.count, by: 7) {
            flipped[index] ^= 0x5A
            _ = try? ArchiveTransformers.decode(Data(flipped), allowed: nil)
        }
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Doc") {
                AttributeDescription("info", .transformable, valueTransformerName: "NSSecureUnarchiveFromData")
                AttributeDescription("tint", .transformable, valueTransformerName: "ColorTransformer")
                AttributeDescription("legacy", .transformable)
            }
        }
    }

    @Test("a transformable attribute reads Apple's archives and writes archives that read back equal; a class the transformer does not allow is refused")
    func storeRoundTrip() throws {
        ArchiveTransformers.register("ColorTransformer", allowedClasses: ["UIColor", "NSColor", "NSAttributedString"])
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Docs.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let values: [String: Any] = ["name": "Ada", "scores": [Int64(1), 2.5, "x"] as [Any], "when": Date(timeIntervalSinceReferenceDate: 42),
                                     "site": URL(string: "https://example.com")!, "id": UUID(uuidString: "6A2F41A3-C54C-4F5B-8C26-1D2E3F405162")!,
                                     "tags": Set<AnyHashable>(["a", "b"]), "raw": Data([9, 8])]
        try context.performAndWait { () throws in
            let written = try context.insertNewObject(forEntityName: "Doc")
            try written.setValidatedValue(values, forKey: "info")
            try written.setValidatedValue(ArchivedAttributedString(string: "Hi there", runs: [
                .init(range: 0..<2, attributes: ["NSColor": ArchivedColor(red: 1, green: 0, blue: 0)]), .init(range: 2..<8, attributes: [:]),
            ]), forKey: "tint")
            let refused = try #require(throws: NimbusError.self) { try written.setValidatedValue(ArchivedColor(red: 1, green: 1, blue: 1), forKey: "info") }
            #expect(refused.code == .typeMismatch && refused.message.contains("UIColor"), "\(refused.message)")
            // Bytes Apple's archiver wrote, stored as they are, read as values.
            let apple = try context.insertNewObject(forEntityName: "Doc")
            try apple.setValidatedValue(try Self.fixture("dictionary"), forKey: "legacy")
            try apple.setValidatedValue(try Self.fixture("nscolor"), forKey: "tint")
            try context.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try reader.performAndWait { () throws in
            let docs = try reader.all("Doc")
            let written = try #require(docs.first { $0.value(forKey: "info") != nil })
            let info = try #require(written.value(forKey: "info") as? [String: Any])
            #expect(info["name"] as? String == "Ada")
            #expect((info["scores"] as? [Any]).map { "\($0)" } == "\([Int64(1), 2.5, "x"] as [Any])")
            #expect(info["when"] as? Date == Date(timeIntervalSinceReferenceDate: 42))
            #expect(info["site"] as? URL == URL(string: "https://example.com"))
            #expect(info["id"] as? UUID == UUID(uuidString: "6A2F41A3-C54C-4F5B-8C26-1D2E3F405162"))
            #expect(info["tags"] as? Set<AnyHashable> == Set<AnyHashable>(["a", "b"]))
            #expect(info["raw"] as? Data == Data([9, 8]))
            let text = try #require(written.value(forKey: "tint") as? ArchivedAttributedString)
            #expect(text.string == "Hi there" && text.runs.map(\.range) == [0..<2, 2..<8])
            #expect(text.runs[0].attributes["NSColor"] as? ArchivedColor == ArchivedColor(red: 1, green: 0, blue: 0))
            // What is stored is a keyed archive.
            let stored = try #require(written.primitiveValue(forKey: "info"))
            guard case let .data(bytes) = stored else { Issue.record("stored \(stored)"); return }
            #expect(bytes.starts(with: Array("bplist00".utf8)))
            let apple = try #require(docs.first { $0.value(forKey: "legacy") != nil })
            #expect((apple.value(forKey: "legacy") as? [String: Any])?["title"] as? String == "Hello")
            #expect(apple.value(forKey: "tint") as? ArchivedColor == ArchivedColor(red: 0.2, green: 0.4, blue: 0.6))
        }
    }
}
