import Dispatch
import Foundation
import Nimbus

// Uses a context or its objects as one scenario says, for the queue-confinement tests:
// misuse must stop the process with a message on stderr; correct use prints "ok".
// Usage: ConfinementWorker <scenario>

/// Writes a line straight to stdout (no buffering: the parent must see it before a trap).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let model = try ManagedObjectModel {
    EntityDescription("Post") {
        AttributeDescription("title", .string)
        RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
    }
    EntityDescription("Tag") {
        AttributeDescription("name", .string)
        RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
    }
}
let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
try coordinator.addPersistentStore(with: PersistentStoreDescription(type: .inMemory))

/// A private-queue context named "worker" holding one saved post.
func seeded() throws -> (ManagedObjectContext, ManagedObject) {
    let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    context.name = "worker"
    let post = try context.performAndWait {
        let post = try context.insertNewObject(forEntityName: "Post")
        post.setValue("Hello", forKey: "title")
        try context.save()
        return post
    }
    return (context, post)
}

/// The post as a `@Managed` class, whose accessors read copies of the values.
@Managed(entityName: "Post") final class TypedPost: ManagedObject {
    var title: String?
}

/// A private-queue context named "worker" holding one saved post fetched as a `TypedPost`,
/// its copies loaded: an accessor would read them without calling into the context.
func seededTyped() throws -> (ManagedObjectContext, TypedPost) {
    let typedCoordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(TypedPost.self))
    try typedCoordinator.addPersistentStore(with: PersistentStoreDescription(type: .inMemory))
    let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: typedCoordinator)
    context.name = "worker"
    let post = try context.performAndWait { () throws in
        TypedPost(context: context).title = "Hello"
        try context.save()
        context.reset()
        var request = TypedPost.fetchRequest()
        request.returnsObjectsAsFaults = false
        let post = try context.fetch(request)[0]
        guard post._typedValuesReadable, post.title == "Hello" else { fatalError("the fetch did not load the copies") }
        return post
    }
    return (context, post)
}

/// Runs a block on a thread that is not the main thread, and waits for it.
func onBackgroundThread(_ block: @escaping @Sendable () throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<(any Error)?>(nil)
    Thread.detachNewThread {
        do { try block() } catch { failure.withLock { $0 = error } }
        done.signal()
    }
    done.wait()
    if let error = failure.withLock({ $0 }) { throw error }
}

import Synchronization

switch CommandLine.arguments.dropFirst().first {
case "context-fetch":
    let (context, _) = try seeded()
    say("misusing")
    _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post"))
case "object-read":
    let (context, post) = try seeded()
    say("misusing")
    _ = post.value(forKey: "title")
    withExtendedLifetime(context) {}
case "typed-read":
    let (context, post) = try seededTyped()
    say("misusing")
    _ = post.title
    withExtendedLifetime(context) {}
case "object-write":
    let (context, post) = try seeded()
    say("misusing")
    post.setValue("Changed", forKey: "title")
    withExtendedLifetime(context) {}
case "context-save-from-other-context":
    // Inside another context's block is still off this context's queue.
    let (context, _) = try seeded()
    let other = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    try other.performAndWait {
        say("misusing")
        try context.save()
    }
case "main-context-off-main-thread":
    let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: coordinator)
    viewContext.name = "viewContext"
    try onBackgroundThread {
        say("misusing")
        _ = try viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Post"))
    }
case "unknown-key-set", "unknown-key-read", "wrong-type-set":
    // Bad input to key-value accessors: debug builds stop (Core Data raises).
    let (context, post) = try seeded()
    context.performAndWait {
        say("misusing")
        switch CommandLine.arguments[1] {
        case "unknown-key-set": post.setValue("x", forKey: "titel")
        case "unknown-key-read": _ = post.value(forKey: "titel")
        default: post.setValue(42, forKey: "title")
        }
    }
    say("not stopped")
case "correct":
    let (context, post) = try seeded()
    let id = post.objectID
    // performAndWait, reentrant.
    let title = context.performAndWait { context.performAndWait { post.value(forKey: "title") as? String } }
    guard title == "Hello" else { fatalError("read \(String(describing: title))") }
    // perform, from another thread.
    let done = DispatchSemaphore(value: 0)
    context.perform {
        context.object(with: id).setValue("Edited", forKey: "title")
        try! context.save()
        done.signal()
    }
    done.wait()
    // await perform.
    let task = Task { try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) } }
    let count = try await task.value
    guard count == 1 else { fatalError("counted \(count)") }
    // A main-queue context on the main thread, and from elsewhere through performAndWait.
    let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: coordinator)
    let fetched = try viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Post"))
    guard fetched.first?.value(forKey: "title") as? String == "Edited" else { fatalError("main thread read") }
    // A child of the main-queue context (its save waits on the parent from the main thread),
    // and a child of a private context calling back into itself from its parent's block.
    let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: viewContext)
    try child.performAndWait {
        let childPost = try child.existingObject(with: id)
        childPost.setValue("From child", forKey: "title")
        try child.save()
    }
    guard fetched.first?.value(forKey: "title") as? String == "From child" else { fatalError("child save") }
    let grandchild = ManagedObjectContext(concurrencyType: .privateQueue, parent: context)
    try grandchild.performAndWait {
        let object = try grandchild.existingObject(with: post.objectID)
        try context.performAndWait {
            _ = try context.existingObject(with: post.objectID).value(forKey: "title")
            _ = object.value(forKey: "title")
            grandchild.performAndWait { _ = object.isFault }
        }
    }
    say("ok")
default:
    FileHandle.standardError.write(Data("usage: ConfinementWorker <scenario>\n".utf8))
    exit(2)
}
