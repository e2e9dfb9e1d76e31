import Foundation
import Nimbus
import NimbusTesting
import Testing

// An entity hierarchy through @Managed subclasses: Photo's properties sort around Media's,
// so one accessor reads another index in each entity.

@Managed(isAbstract: true) class Media: ManagedObject {
    var caption: String?
    var album: Album?
}

@Managed final class Photo: Media {
    var aperture: Double = 2.8
    var width: Int32 = 0
}

@Managed class Video: Media {
    var seconds: Double = 0
}

@Managed class Clip: Video {
    var source: String?
}

/// A subclass that adds behaviour only: it keeps Clip's entity and naming.
final class TrimmedClip: Clip {}

@Managed final class Album: ManagedObject {
    var name: String?
    @Relationship(deleteRule: .cascade, inverse: \Media.album) var items: [Media]
}

@Suite("@Managed class hierarchies")
struct HierarchyTests {
    func context() throws -> (TemporaryDirectory, ManagedObjectContext) {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(Media.self, Photo.self, Video.self, Clip.self, Album.self))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Media.sqlite")))
        return (folder, ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator))
    }

    @Test("a subclass's entity has the superclass's entity as parent and inherits its properties")
    func entities() throws {
        let model = try ManagedObjectModel(Media.self, Photo.self, Album.self)
        let photo = try model.entity(named: "Photo")
        #expect(photo.superentity === model.entitiesByName["Media"])
        #expect(model.entitiesByName["Media"]?.isAbstract == true)
        #expect(photo.properties.map(\.name) == ["album", "aperture", "caption", "width"])
        #expect(photo.attributesByName["aperture"]?.defaultValue == .double(2.8))
        #expect(Photo.managedSlotNames == ["caption", "album", "aperture", "width"])
    }

    @Test("inherited and own accessors read and write the right property of each entity")
    func accessors() throws {
        let (folder, context) = try context()
        _ = folder
        try context.performAndWait {
            let album = Album(context: context)
            album.name = "Trip"
            let photo = Photo(context: context)
            photo.caption = "Beach"
            photo.width = 1024
            #expect(photo.aperture == 2.8)
            photo.aperture = 4
            album.items = [photo]
            #expect(photo.album === album)
            #expect(photo.value(forKey: "caption") as? String == "Beach")
            #expect(photo.value(forKey: "aperture") as? Double == 4)
            try context.save()
            context.reset()

            let media = try FetchRequest<Media>(entityName: "Media").execute()
            let fetched = try #require(media.first as? Photo)
            #expect(fetched.caption == "Beach" && fetched.width == 1024 && fetched.aperture == 4)
            #expect(fetched.album?.name == "Trip")
            let wide = try FetchRequest<Photo>(entityName: "Photo", predicate: #Predicate<Photo> { $0.width > 1000 })
            #expect(try wide.execute().count == 1)
            let beach = try FetchRequest<Media>(entityName: "Media", predicate: #Predicate<Media> { $0.caption == "Beach" })
            #expect(try beach.execute().count == 1)
        }
    }

    @Test("#Predicate over a subclass names inherited properties, through every level")
    func inheritedPropertiesInPredicates() throws {
        #expect(Photo.propertyName(for: \Photo.caption) == "caption")
        #expect(Photo.propertyName(for: \Photo.album) == "album")
        #expect(Photo.propertyName(for: \Photo.width) == "width")
        #expect(Photo.propertyName(for: \Media.caption) == "caption")
        #expect(Clip.propertyName(for: \Clip.caption) == "caption")
        #expect(Clip.propertyName(for: \Clip.seconds) == "seconds")
        #expect(Clip.propertyName(for: \Clip.source) == "source")
        #expect(TrimmedClip.propertyName(for: \TrimmedClip.seconds) == "seconds")
        #expect(TrimmedClip.propertyName(for: \TrimmedClip.caption) == "caption")
        #expect(Media.propertyName(for: \Photo.width) == nil)
        #expect(Photo.propertyName(for: \Clip.seconds) == nil)
        #expect(Clip.propertyName(for: \Clip.entity) == nil)

        let (folder, context) = try context()
        _ = folder
        try context.performAndWait {
            let album = Album(context: context)
            album.name = "Trip"
            for (caption, width) in [("Beach", 1024), ("Hills", 640), ("Beach at night", 2048)] {
                let photo = Photo(context: context)
                photo.caption = caption
                photo.width = Int32(width)
                photo.album = album
            }
            let clip = Clip(context: context)
            clip.caption = "Beach"
            clip.seconds = 12
            clip.source = "phone"
            try context.save()
            context.reset()

            let beachPhotos = try FetchRequest<Photo>(entityName: "Photo", predicate: #Predicate<Photo> {
                $0.caption?.starts(with: "Beach") == true && $0.width > 1000
            })
            #expect(try beachPhotos.execute().compactMap(\.caption).sorted() == ["Beach", "Beach at night"])
            let inAlbum = try FetchRequest<Photo>(entityName: "Photo", predicate: #Predicate<Photo> { $0.album?.name == "Trip" })
            #expect(try inAlbum.execute().count == 3)
            let longClips = try FetchRequest<Clip>(entityName: "Clip", predicate: #Predicate<Clip> { $0.caption == "Beach" && $0.seconds > 10 })
            #expect(try longClips.execute().count == 1)
            let fromPhones = try FetchRequest<Clip>(entityName: "Clip", predicate: #Predicate<Clip> { $0.source == "phone" })
            #expect(try fromPhones.execute().map(\.seconds) == [12])
        }
    }
}

@Suite("Models that do not match their @Managed classes")
struct ClassMismatchTests {
    @Test("an entity whose property has another kind or is missing is rejected, naming each problem")
    func mismatch() throws {
        let error = #expect(throws: NimbusError.self) {
            try ManagedObjectModel {
                EntityDescription("Album", class: Album.self) {
                    AttributeDescription("name", .integer16)
                }
                EntityDescription("Media", isAbstract: true, class: Media.self) {
                    AttributeDescription("caption", .string)
                    AttributeDescription("album", .string)
                }
            }
        }
        #expect(error?.code == .invalidModel)
        let message = error?.message ?? ""
        #expect(message.contains("entity Album does not match its class Album: name is declared an attribute of type string but the entity has an attribute of type integer16, items is not a property of the entity"))
        #expect(message.contains("entity Media does not match its class Media: album is declared a to-one relationship but the entity has an attribute of type string"))
    }

    @Test("a model file bound to matching classes with withClasses works; the classes' own model agrees with it")
    func withClasses() throws {
        let fromClasses = try ManagedObjectModel(Media.self, Photo.self, Album.self)
        let data = try JSONEncoder().encode(fromClasses)
        let decoded = try JSONDecoder().decode(ManagedObjectModel.self, from: data)
        #expect(decoded.entitiesByName["Photo"]?.managedObjectClass == ManagedObject.self)
        let bound = try decoded.withClasses(Media.self, Photo.self, Album.self)
        #expect(bound.entitiesByName["Photo"]?.managedObjectClass == Photo.self)
        #expect(bound.entityVersionHashesByName == fromClasses.entityVersionHashesByName)
    }
}
