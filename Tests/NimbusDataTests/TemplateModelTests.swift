import Foundation
import NimbusData
import Testing

// Xcode's SwiftData app template, and a non-final model with its own `id`.
@Model
class Item {
    var timestamp: Date

    init(timestamp: Date) {
        self.timestamp = timestamp
    }
}

@Model
public class Contact: Identifiable {
    @Attribute(.unique) public var id: UUID = UUID()
    public var name: String = ""
    public var emails: [String]? = nil

    public init(name: String) { self.name = name }
}

@Suite("Template models")
struct TemplateModelTests {
    @Test("a non-final model, a public model with its own unique id, and Identifiable by that id")
    func templates() throws {
        let url = temporaryStoreURL()
        let container = try ModelContainer(for: Item.self, Contact.self,
                                           configurations: ModelConfiguration(url: url, cloudKitDatabase: .none))
        let context = ModelContext(container)
        let now = Date(timeIntervalSinceReferenceDate: 1000)
        context.insert(Item(timestamp: now))
        let ada = Contact(name: "Ada")
        ada.emails = ["ada@example.com"]
        context.insert(ada)
        try context.save()
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<Item>()).map(\.timestamp) == [now])
        let contact = try #require(try other.fetch(FetchDescriptor<Contact>()).first)
        #expect(contact.id == ada.id)
        #expect(contact.emails == ["ada@example.com"])
    }
}
