import Foundation
import Nimbus

extension PersistentStore {
    /// The SQL statements the store ran since it was added, when it was added with the
    /// option `recordSQL = "1"`; nil otherwise.
    public var recordedSQL: [String]? { recordedStatements }

    /// Forgets the statements recorded so far.
    public func resetRecordedSQL() { resetRecordedStatements() }
}
