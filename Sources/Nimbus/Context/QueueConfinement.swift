#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CNimbusThreadLocal
import Dispatch
import Foundation

/// Which contexts the current thread runs work for, checked by every entry point of a
/// context and of its objects (as GRDB's `SchedulingWatchdog` checks its database's queue).
///
/// A context's state and its objects' values skip the runtime's exclusivity checks and sit
/// in tables of raw pointers (decision 0012), so using them from two threads at once
/// corrupts memory. Every public entry point therefore checks that the caller runs on the
/// context's queue, and stops the process with a message naming the context when it does
/// not (decision 0015).
///
/// The check is a thread-local pointer (a C11 thread-local variable, read with one load):
/// ``ManagedObjectContext/perform(_:)`` and
/// ``ManagedObjectContext/performAndWait(_:)`` make their context's ``ContextReference`` the
/// thread's innermost one while their block runs, remembering the one they interrupted (a
/// child's block that calls `performAndWait` on its parent holds both queues). An entry
/// point compares its context's reference with the thread's innermost one; only when they
/// differ does it walk the chain, and for a main-queue context ask whether this is the main
/// thread (or the main queue, which `dispatchMain()` may run on another thread).
@usableFromInline
enum QueueConfinement {
    /// The innermost context reference active on this thread, if any, unretained.
    @inlinable @inline(__always)
    static var innermost: UnsafeMutableRawPointer? {
        nimbus_innermost_context_get()
    }

    /// Runs a block with `reference` as the innermost active context of this thread (unless
    /// the thread holds its queue already: a reference is never in a thread's chain twice).
    static func withActive<T>(_ reference: ContextReference, _ block: () throws -> T) rethrows -> T {
        if reference.isInThreadChain { return try block() }
        return try pushing(reference, block)
    }

    /// Runs a block with `reference`, not yet in this thread's chain, as its innermost one.
    @inline(__always)
    static func pushing<T>(_ reference: ContextReference, _ block: () throws -> T) rethrows -> T {
        let enclosing = innermost
        let pointer = Unmanaged.passUnretained(reference).toOpaque()
        reference.enclosing = enclosing
        nimbus_innermost_context_set(pointer)
        defer {
            nimbus_innermost_context_set(enclosing)
            reference.enclosing = nil
        }
        return try block()
    }
}

extension ContextReference {
    /// Whether the current thread may use this context: it runs one of the context's
    /// `perform` blocks (or a block of a context that waits for this one's work), or the
    /// context is a main-queue context and this is the main thread or the main queue.
    @usableFromInline var isActiveOnCurrentThread: Bool {
        isInThreadChain || (isMainQueue && Self.holdsMainQueue)
    }

    /// Stands in a thread's chain for the main queue while a thread that holds it waits in
    /// a private context's `performAndWait`: the block runs on a private queue, yet a
    /// main-queue context (a parent, say) is still safe to use, and waiting on the main
    /// queue there would deadlock.
    static let mainQueueMarker = ContextReference(isMainQueue: true)

    /// Whether the current thread holds the main queue: the main thread, the main queue, or
    /// a private context's block waited for by either.
    static var holdsMainQueue: Bool {
        isOnMainQueue || mainQueueMarker.isInThreadChain
    }

    /// Whether a `perform` block of this context (or of a context that waits on its work)
    /// runs on the current thread.
    var isInThreadChain: Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var pointer = QueueConfinement.innermost
        while let current = pointer {
            if current == me { return true }
            pointer = Unmanaged<ContextReference>.fromOpaque(current).takeUnretainedValue().enclosing
        }
        return false
    }

    /// Whether this is the main thread, or the main queue (which `dispatchMain()`, as Swift's
    /// main actor uses on Linux, may run on another thread).
    static var isOnMainQueue: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: ManagedObjectContext.mainQueueKey) == true
    }

    /// Stops the process when the current thread may not use this context.
    ///
    /// Objects whose context is gone are not confined any more (there is no queue left
    /// to share their state with), so they pass.
    @inline(never)
    func checkActiveOnCurrentThread(_ function: StaticString, object: ManagedObject?) {
        if isActiveOnCurrentThread { return }
        guard let context else { return }
        QueueConfinement.fail(context, function, object: object)
    }
}

extension QueueConfinement {
    /// Stops the process with a message that names the context and says how to fix the call.
    @inline(never)
    static func fail(_ context: ManagedObjectContext, _ function: StaticString, object: ManagedObject?) -> Never {
        let name = context.name.map { "\"\($0)\"" } ?? "(unnamed)"
        let kind = context.concurrencyType == .mainQueue ? "main-queue" : "private-queue"
        let subject = object.map { "ManagedObject.\(function) on \($0.entity.name) \($0.objectID)" }
            ?? "ManagedObjectContext.\(function)"
        let fix = context.concurrencyType == .mainQueue
            ? "call it on the main actor (or the main thread), or inside context.perform { … } / context.performAndWait { … }"
            : "call it inside context.perform { … }, context.performAndWait { … } or `await context.perform { … }`"
        let threadDescription = Thread.isMainThread ? "the main thread"
            : Thread.current.name.flatMap { $0.isEmpty ? nil : "thread \"\($0)\"" } ?? "thread \(pthread_self())"
        fatalError("""
            Nimbus queue confinement violated: \(subject) was called off the queue of the \(kind) \
            context \(name), on \(threadDescription). \
            A context and its objects may be used only on the context's queue; \(fix).
            """)
    }
}

extension ManagedObjectContext {
    /// Stops the process unless the caller runs on the context's queue; called first by
    /// every public entry point. Costs a thread-local read and a compare when the caller
    /// runs inside this context's `perform` or `performAndWait`.
    @inline(__always)
    func checkQueue(_ function: StaticString = #function) {
        let innermost = QueueConfinement.innermost
        if _fastPath(innermost == Unmanaged.passUnretained(reference).toOpaque()) { return }
        reference.checkActiveOnCurrentThread(function, object: nil)
    }
}

extension ManagedObject {
    /// Stops the process unless the caller runs on the queue of the object's context;
    /// objects outside any context pass.
    @inline(__always)
    func checkQueue(_ function: StaticString = #function) {
        let innermost = QueueConfinement.innermost
        guard let reference = contextReference else { return }
        if _fastPath(innermost == Unmanaged.passUnretained(reference).toOpaque()) { return }
        reference.checkActiveOnCurrentThread(function, object: self)
    }
}
