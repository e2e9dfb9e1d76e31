import Crypto
import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// What Core Data infers beyond renames and added attributes: numeric widening, optional ↔
/// required with defaults, to-one ↔ to-many.
@Suite("Inferred migration")
struct InferredMigrationTests {
    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Track") {
                AttributeDescription("title", .string)
                AttributeDescription("plays", .integer64)
                AttributeDescription("rating", .float)
                AttributeDescription("liked", .boolean)
                AttributeDescription("artist", .string)
                RelationshipDescription("album", to: "Album", inverse: "tracks")
                RelationshipDescription("playlists", to: "Playlist", inverse: "tracks", toMany: true)
            }
            EntityDescription("Album") {
                AttributeDescription("name", .string)
                RelationshipDescription("tracks", to: "Track", inverse: "album", toMany: true)
            }
            EntityDescription("Playlist") {
                AttributeDescription("name", .string)
                RelationshipDescription("tracks", to: "Track", inverse: "playlists", toMany: true)
            }
        }
    }

    /// Every kind of change at once.
    static func v2(artistDefault: Any? = "Unknown") throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Track") {
                AttributeDescription("title", .string)
                AttributeDescription("plays", .double)
                AttributeDescription("rating", .double)
                AttributeDescription("liked", .integer16)
                AttributeDescription("artist", .string, isOptional: false, defaultValue: artistDefault)
                RelationshipDescription("albums", to: "Album", inverse: "tracks", toMany: true, renamingIdentifier: "album")
                RelationshipDescription("playlist", to: "Playlist", inverse: "tracks")
            }
            EntityDescription("Album") {
                AttributeDescription("name", .string)
                RelationshipDescription("tracks", to: "Track", inverse: "albums", toMany: true)
            }
            EntityDescription("Playlist") {
                AttributeDescription("name", .string)
                RelationshipDescription("tracks", to: "Track", inverse: "playlist", toMany: true)
            }
        }
    }

    static func seed(_ url: URL, playlistsPerTrack: Int = 1) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try v1())
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let album = try context.insert("Album", ["name": "Blue"])
            let lists = try (0..<2).map { try context.insert("Playlist", ["name": "list \($0)"]) }
            let a = try context.insert("Track", ["title": "a", "plays": Int64(1) << 53, "rating": Float(4.5), "liked": true, "artist": "Joni", "album": album])
            let b = try context.insert("Track", ["title": "b", "plays": 3, "rating": Float(1.25), "liked": false])
            try a.addObjects(Array(lists.prefix(playlistsPerTrack)), toRelationship: "playlists")
            try b.addObjects([lists[1]], toRelationship: "playlists")
            try context.save()
        }
        try coordinator.removePersistentStore(store)
    }

    @Test("integers widen to doubles, floats to doubles, Booleans to integers; nil takes the new default; to-one and to-many trade places")
    func infers() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Music.sqlite")
        try Self.seed(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.v2())
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let tracks = try context.all("Track", sortedBy: "title")
            #expect(tracks.map { $0.value(forKey: "plays") as? Double } == [Double(Int64(1) << 53), 3])
            #expect(tracks.map { $0.value(forKey: "rating") as? Double } == [4.5, 1.25])
            #expect(tracks.map { $0.value(forKey: "liked") as? Int16 } == [1, 0])
            #expect(tracks.map { $0.value(forKey: "artist") as? String } == ["Joni", "Unknown"])
            #expect(tracks.map { (($0.value(forKey: "albums") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String } } == [["Blue"], []])
            #expect(tracks.map { ($0.value(forKey: "playlist") as? ManagedObject)?.value(forKey: "name") as? String } == ["list 0", "list 1"])
            let album = try #require(try context.all("Album").first)
            #expect((album.value(forKey: "tracks") as? Set<ManagedObject>)?.count == 1)
            // The new shapes save both ways.
            try tracks[1].addObjects([album], toRelationship: "albums")
            tracks[0].setValue(nil, forKey: "playlist")
            try context.save()
            #expect((album.value(forKey: "tracks") as? Set<ManagedObject>)?.count == 2)
        }
    }

    @Test("a to-many that holds two objects cannot become to-one, and a required attribute without a default cannot take nils: refused, store unchanged")
    func refuses() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Music.sqlite")
        try Self.seed(url, playlistsPerTrack: 2)
        let before = Data(SHA256.hash(data: try Data(contentsOf: url)))
        let error = try #require(throws: NimbusError.self) {
            try PersistentStoreCoordinator(managedObjectModel: try Self.v2()).addPersistentStore(with: PersistentStoreDescription(url: url))
        }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("Track.playlist becomes to-one, but Track p1 is related to more than one object"), "\(error.message)")
        #expect(Data(SHA256.hash(data: try Data(contentsOf: url))) == before)

        let other = folder.file("Other.sqlite")
        try Self.seed(other)
        let noDefault = try #require(throws: NimbusError.self) {
            try PersistentStoreCoordinator(managedObjectModel: try Self.v2(artistDefault: nil)).addPersistentStore(with: PersistentStoreDescription(url: other))
        }
        #expect(noDefault.message.contains("Track.artist is required in the new model but 1 object(s) have no value"), "\(noDefault.message)")
        let stringToInteger = try ManagedObjectModel {
            EntityDescription("Track") { AttributeDescription("title", .integer64) }
        }
        let narrowing = try #require(throws: NimbusError.self) {
            try PersistentStoreCoordinator(managedObjectModel: stringToInteger).addPersistentStore(with: PersistentStoreDescription(url: other))
        }
        #expect(narrowing.message.contains("Track.title changed type from string to integer64"), "\(narrowing.message)")
    }
}
