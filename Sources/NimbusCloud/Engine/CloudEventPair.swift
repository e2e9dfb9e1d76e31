import Foundation
import Synchronization

/// The events of one piece of work (an export or an import): one identifier and start date
/// for all of them, the started event held back until there is something to report, so an
/// idle pass posts nothing.
final class CloudEventPair: Sendable {
    private let started: CloudEvent
    private let emit: @Sendable (CloudEvent) -> Void
    private let announced = Mutex(false)

    init(_ kind: CloudEvent.Kind, storeIdentifier: String, emit: @escaping @Sendable (CloudEvent) -> Void) {
        started = CloudEvent(kind: kind, phase: .started, storeIdentifier: storeIdentifier, recordCount: 0)
        self.emit = emit
    }

    /// Posts the started event, the first time only.
    private func announce() {
        let first = announced.withLock { announced in
            defer { announced = true }
            return !announced
        }
        if first { emit(started) }
    }

    /// Posts progress (records so far); nothing for no records.
    func progress(_ count: Int) {
        guard count > 0 else { return }
        announce()
        var event = started
        event.phase = .progress
        event.recordCount = count
        event.date = Date()
        emit(event)
    }

    /// Posts the ended event (and the started one before it), unless the work was idle:
    /// nothing exchanged, no error, nothing posted yet.
    func end(recordCount: Int, deletedCount: Int = 0, conflictCount: Int = 0, quarantinedCount: Int = 0, error: CloudError? = nil) {
        let idle = recordCount == 0 && deletedCount == 0 && conflictCount == 0 && quarantinedCount == 0 && error == nil
        if idle && !announced.withLock({ $0 }) { return }
        announce()
        var event = started
        event.phase = .ended
        event.recordCount = recordCount
        event.deletedCount = deletedCount
        event.conflictCount = conflictCount
        event.quarantinedCount = quarantinedCount
        event.error = error
        event.date = Date()
        event.endDate = event.date
        emit(event)
    }
}
