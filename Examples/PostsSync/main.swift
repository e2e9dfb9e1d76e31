// A small app that syncs its posts through a Nimbus server, the way an app uses CloudContainer.
//
//   swift run nimbus users add ada --data-dir ./data
//   swift run nimbus tokens create --user ada --device laptop --data-dir ./data   # prints nmb_…
//   swift run nimbus serve --data-dir ./data --port 8080 &
//   swift run PostsSync http://127.0.0.1:8080 nmb_… "Hello from Linux"
import Foundation
import Nimbus
import NimbusCloud

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2, let server = URL(string: arguments[arguments.startIndex]) else {
    print("usage: PostsSync <server URL> <device token> [title of a new post]")
    exit(2)
}
let token = arguments[arguments.startIndex + 1]
let newTitle = arguments.count > 2 ? arguments[arguments.startIndex + 2] : nil

// The model: posts and tags sync (configuration "Cloud"); drafts stay on this machine ("Local").
let model = try ManagedObjectModel(configurations: ["Cloud": ["Post", "Tag"], "Local": ["Draft"]]) {
    EntityDescription("Post") {
        AttributeDescription("title", .string)
        AttributeDescription("createdAt", .date)
        RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
    }
    EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
        AttributeDescription("name", .string)
        RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
    }
    EntityDescription("Draft") {
        AttributeDescription("text", .string)
    }
}

let folder = PersistentContainer.defaultDirectoryURL().appendingPathComponent("PostsSync", isDirectory: true)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let container = CloudContainer(name: "PostsSync", managedObjectModel: model)
var cloud = PersistentStoreDescription(url: folder.appendingPathComponent("Cloud.sqlite"))
cloud.configuration = "Cloud"
cloud.cloudContainerOptions = CloudContainerOptions(serverURL: server, containerIdentifier: "com.example.posts", token: token)
var local = PersistentStoreDescription(url: folder.appendingPathComponent("Local.sqlite"))
local.configuration = "Local"
container.persistentStoreDescriptions = [cloud, local]
try container.loadPersistentStores()   // syncing starts by itself

// Watch what the engine does.
let events = container.events
let watcher = Task {
    for await event in events where event.phase == .ended { print("sync:", event) }
}

if let newTitle {
    let context = container.newBackgroundContext()
    try await context.perform {
        let post = try context.insertNewObject(forEntityName: "Post")
        post.setValue(newTitle, forKey: "title")
        post.setValue(Date(), forKey: "createdAt")
        try context.save()   // exported shortly after, by itself
    }
}

// Make sure everything is in step before printing, then list what this device holds.
try await container.syncNow()
let context = container.newBackgroundContext()
let titles = try await context.perform {
    var request = FetchRequest<ManagedObject>(entityName: "Post")
    request.sortDescriptors = [FetchSortDescriptor("createdAt")]
    return try context.fetch(request).map { post in
        let state = try container.syncState(for: post.objectID).rawValue
        return "\(post.value(forKey: "title") as? String ?? "") [\(state)]"
    }
}
print("posts on this device:")
for title in titles { print("  -", title) }
watcher.cancel()
await container.stopSyncing()
