import Foundation

/// The error every Nimbus API throws.
///
/// Each error has a stable ``Code`` to switch on, a message that says what happened and
/// how to fix it, and the underlying cause when there is one. For example:
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as NimbusError where error.code == .validationFailed {
///     for failure in error.validationFailures { print(failure) }
/// }
/// ```
public struct NimbusError: Error, Sendable, CustomStringConvertible {
    /// A stable error code. New codes may be added without breaking the API.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case validationFailed, deleteDenied, unknownEntity, unknownProperty, typeMismatch
            case invalidPredicate, invalidModel, modelMismatch, notADatabase, corruptStore
            case storeNotFound, storeAlreadyAdded, readOnlyStore, objectNotFound
            case invalidObjectID, wrongContext, invalidArgument, sqliteError, io, unsupported
            case mergeConflict, inaccessibleFault, invalidToken, historyPurgeRefused
            case noStores, invalidSearchQuery, constraintConflict, migrationFailed, historyTokenExpired
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A save would give two objects the same values for an entity's uniqueness
        /// constraint (Core Data's `NSManagedObjectConstraintMergeError`); nothing was saved.
        /// Under the ``MergePolicy/error`` policy ``NimbusError/constraintConflicts`` lists them.
        public static let constraintConflict = Code(.constraintConflict)
        /// A migration (a mapping model, a custom policy or a stage of a plan) failed; the
        /// store was left as it was.
        public static let migrationFailed = Code(.migrationFailed)
        /// Objects failed validation on save; see ``NimbusError/validationFailures``.
        public static let validationFailed = Code(.validationFailed)
        /// A `deny` delete rule blocked a delete.
        public static let deleteDenied = Code(.deleteDenied)
        /// An entity name is not in the model.
        public static let unknownEntity = Code(.unknownEntity)
        /// A key is not a property of the entity.
        public static let unknownProperty = Code(.unknownProperty)
        /// A value has the wrong type for the property or operator.
        public static let typeMismatch = Code(.typeMismatch)
        /// A predicate could not be parsed or compiled.
        public static let invalidPredicate = Code(.invalidPredicate)
        /// A model is inconsistent (e.g. a relationship's inverse is missing).
        public static let invalidModel = Code(.invalidModel)
        /// The store was written with a different model.
        public static let modelMismatch = Code(.modelMismatch)
        /// The file is not a SQLite database.
        public static let notADatabase = Code(.notADatabase)
        /// The database is damaged or is not a Nimbus/Core Data store.
        public static let corruptStore = Code(.corruptStore)
        /// No store at the given location.
        public static let storeNotFound = Code(.storeNotFound)
        /// A store with the same URL is already in the coordinator.
        public static let storeAlreadyAdded = Code(.storeAlreadyAdded)
        /// A write was attempted on a read-only store.
        public static let readOnlyStore = Code(.readOnlyStore)
        /// The object's row no longer exists.
        public static let objectNotFound = Code(.objectNotFound)
        /// An object ID or its URI is malformed or belongs to another store.
        public static let invalidObjectID = Code(.invalidObjectID)
        /// An object was used with a context it does not belong to.
        public static let wrongContext = Code(.wrongContext)
        /// An argument is out of range or malformed.
        public static let invalidArgument = Code(.invalidArgument)
        /// SQLite reported an error.
        public static let sqliteError = Code(.sqliteError)
        /// A file could not be read or written.
        public static let io = Code(.io)
        /// The feature is not supported (the message says which part).
        public static let unsupported = Code(.unsupported)
        /// The store changed under the context since the objects were read.
        public static let mergeConflict = Code(.mergeConflict)
        /// A fault could not be fulfilled because its row was deleted.
        public static let inaccessibleFault = Code(.inaccessibleFault)
        /// A token (history, query generation) is malformed or from another store.
        public static let invalidToken = Code(.invalidToken)
        /// A history purge would remove history a consumer has not read.
        public static let historyPurgeRefused = Code(.historyPurgeRefused)
        /// History after a token was asked for, but part of it has been purged (Core Data's
        /// `NSPersistentHistoryTokenExpiredError`): the reader has missed changes and must
        /// refetch its objects, then continue from the store's current token.
        public static let historyTokenExpired = Code(.historyTokenExpired)
        /// An operation needs a persistent store and there is none.
        public static let noStores = Code(.noStores)
        /// A search query cannot be understood (an unclosed quote, a stray `*`, no words);
        /// ``NimbusError/column`` points at the problem.
        public static let invalidSearchQuery = Code(.invalidSearchQuery)

        public var description: String { base.rawValue }
    }

    /// One property of one object that failed validation.
    public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
        /// The object that failed (its ID; temporary for inserted objects).
        public var objectID: ManagedObjectID
        /// The entity name.
        public var entityName: String
        /// The property that failed.
        public var property: String
        /// Why it failed.
        public var reason: String

        /// `Entity.property: reason (object …)`, naming the object by its ID (a temporary ID
        /// for an object never saved), so a failure of a related object can be found.
        public var description: String { "\(entityName).\(property): \(reason) (object \(objectID))" }
    }

    /// The error code.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// The underlying error, if any.
    public var underlying: (any Error & Sendable)?
    /// For ``Code/validationFailed``: every failing object and property.
    public var validationFailures: [ValidationFailure] = []
    /// For ``Code/invalidPredicate`` and ``Code/invalidSearchQuery``: the 1-based column of
    /// the offending text.
    public var column: Int?
    /// For ``Code/mergeConflict``: each conflicting object with its old, new and store values.
    public var mergeConflicts: [MergeConflict] = []
    /// For ``Code/constraintConflict``: each broken uniqueness constraint and the objects involved.
    public var constraintConflicts: [ConstraintConflict] = []
    /// Objects whose rows changed (or vanished) under a save, found by the store.
    var conflictingObjectIDs: [ManagedObjectID] = []

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying { return "\(message) (\(underlying))" }
        return message
    }
}

extension NimbusError: LocalizedError {
    public var errorDescription: String? { description }
}
