import Foundation
import Nimbus

// The sample model of the seeds (004): posts, tags, attachments and their image data sync
// through the Cloud configuration; locations stay in the Local one.

@Managed final class Post: ManagedObject {
    @Attribute(.unique) var identifier: UUID?
    @Attribute(.indexed) var title: String?
    var content: String?
    var createdAt: Date?
    var views: Int64 = 0
    var isDraft: Bool = true
    @Relationship(inverse: \Tag.posts) var tags: Set<Tag>
    @Relationship(deleteRule: .cascade, inverse: \Attachment.post) var attachments: [Attachment]

    /// A computed property is the class's own: no storage, no entity property.
    var headline: String { (title ?? "Untitled").uppercased() }
}

@Managed final class Tag: ManagedObject {
    @Attribute(.unique) var name: String = ""
    var posts: Set<Post>
}

@Managed final class Attachment: ManagedObject {
    var fileName: String?
    var post: Post?
    @Relationship(deleteRule: .cascade) var imageData: ImageData?
}

@Managed final class ImageData: ManagedObject {
    @Attribute(.externalStorage) var data: Data?
    var attachment: Attachment?
}

@Managed final class Location: ManagedObject {
    var latitude: Double = 0
    var longitude: Double = 0
    /// The post made here (another store: objects never relate across stores).
    var postIdentifier: UUID?
}

enum SeedModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(Post.self, Tag.self, Attachment.self, ImageData.self, Location.self, configurations: [
            "Cloud": ["Post", "Tag", "Attachment", "ImageData"],
            "Local": ["Location"],
        ])
    }
}
