import Foundation
import GRDB
import Synchronization

/// The servers' clocks as this process last saw them: every answer carries the server's
/// time (HTTP `Date`), and the difference to this device's clock is kept per server.
///
/// Stamps are taken on the server's time, not the device's: a device whose clock runs days
/// ahead or behind still stamps its edits where the server (and every other device) expects
/// them, and edits it stamped in the future before its clock was corrected are stamped
/// again (``ChangeCapture``). Differences under ``tolerance`` are ignored: `Date` has a
/// resolution of one second, and the device's own clock is finer than that.
enum ServerClock {
    /// Differences smaller than this are taken as agreement.
    static let tolerance: TimeInterval = 5
    /// How far ahead of the server's time a stamp may be before it is taken as wrong.
    static let futureBound: TimeInterval = 60

    private static let offsets = Mutex<[String: TimeInterval]>([:])

    /// Records the server's time from an answer's `Date` header (`nil` or unreadable: ignored).
    static func observe(server: String, dateHeader: String?, receivedAt local: Date = Date()) {
        guard let dateHeader, let date = parse(dateHeader) else { return }
        // `Date` is truncated to the second: the server's time lies within the second after it.
        let offset = date.timeIntervalSince(local) + 0.5
        offsets.withLock { $0[key(server)] = abs(offset) < tolerance ? 0 : offset }
    }

    /// Seconds to add to this device's clock to read the server's, when this process has
    /// heard from the server.
    static func offset(for server: URL) -> TimeInterval? {
        offsets.withLock { $0[key(server.absoluteString)] }
    }

    private static func key(_ server: String) -> String {
        var text = server
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }()
    private static let formatterLock = Mutex(())

    static func parse(_ header: String) -> Date? {
        formatterLock.withLock { _ in formatter.date(from: header) }
    }
}

extension StoreMirror {
    /// Seconds to add to this device's clock to read the server's: as last heard in this
    /// process, else as last stored in the store file (0 when never heard).
    func clockOffset(_ db: Database) throws -> TimeInterval {
        if let offset = ServerClock.offset(for: options.serverURL) {
            if try SyncMetadata.doubleState(.clockOffset, db) != offset { try SyncMetadata.setState(.clockOffset, offset, db) }
            return offset
        }
        return try SyncMetadata.doubleState(.clockOffset, db) ?? 0
    }
}
