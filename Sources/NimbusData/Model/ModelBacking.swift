import Nimbus
import Synchronization

/// Where a model's values live: in the backing itself until the model is inserted, then
/// in the managed object of its context (decision 0101). `@Model`'s accessors call it.
public final class _ModelBacking: @unchecked Sendable {
    /// Values set before insertion, by property name.
    var pending: [String: Any] = [:]
    /// The managed object once inserted (or fetched).
    private(set) var object: ManagedObject?
    /// The context once inserted (or fetched). Held strongly: a model outlives a context
    /// made for one fetch (`ModelContext(container).fetch(…)`); the context holds its
    /// models weakly, so there is no cycle.
    private(set) var context: ModelContext?
    /// The pending identity, until the model is inserted.
    let pendingID = UUID()
    var isDeletedFlag = false

    /// A backing for a new model.
    public init() {}

    /// A backing over a managed object of a context.
    init(object: ManagedObject, context: ModelContext) {
        self.object = object
        self.context = context
    }

    func attach(_ object: ManagedObject, context: ModelContext) {
        self.object = object
        self.context = context
    }

    func detach() {
        object = nil
        context = nil
    }

    func identifier(entityName: String) -> PersistentIdentifier {
        guard let object, let context else { return PersistentIdentifier(storage: .pending(pendingID), entityName: entityName) }
        return context.performed { PersistentIdentifier(storage: .object(object.objectID), entityName: entityName) }
    }

    var hasChanges: Bool {
        guard let object, let context else { return true }
        return context.performed { object.isInserted || object.isUpdated || object.isDeleted }
    }

    var isDeleted: Bool {
        guard let object, let context else { return isDeletedFlag }
        return context.performed { object.isDeleted } || isDeletedFlag
    }

    /// The initial value of a property (its declared default, or the first assignment in
    /// an initializer).
    public func setInitialValue<Value>(_ value: Value, forKey key: String) {
        if let object, let context {
            context.setStoredValue(value, forKey: key, of: object)
        } else {
            pending[key] = value
        }
    }

    /// A property's value.
    public func getValue<Model: PersistentModel, Value>(forKey key: String, of model: Model) -> Value {
        if let object, let context {
            if let value = context.storedValue(forKey: key, of: object, as: Model.self) {
                guard let typed = value as? Value else {
                    preconditionFailure("\(Model.self).\(key) holds a \(type(of: value)), not a \(Value.self)")
                }
                return typed
            }
        } else if let value = pending[key] {
            return value as! Value
        }
        if let none = (Value.self as? any _OptionalType.Type)?._none { return none as! Value }
        if let array = Value.self as? any _ModelArray.Type { return array._make([]) as! Value }
        preconditionFailure("\(Model.self).\(key) was read before it was given a value: give it one in the initializer, or a default value")
    }

    /// Sets a property's value.
    public func setValue<Model: PersistentModel, Value>(_ value: Value, forKey key: String, of model: Model) {
        if let object, let context {
            context.setStoredValue(value, forKey: key, of: object)
            return
        }
        pending[key] = value
        // A new model related to an inserted one joins its context (as in SwiftData).
        let info = ModelEntityInfo.known(Model.self)
        guard let property = info.properties[key] else { return }
        switch property.kind {
        case .toOne, .toMany:
            let related = Self.models(in: value)
            if let context = related.lazy.compactMap({ $0._nimbusBacking.context }).first {
                context.insert(model)
            }
        default: break
        }
    }

    /// The models a relationship value holds.
    static func models(in value: Any) -> [any PersistentModel] {
        guard let value = unwrapped(value) else { return [] }
        if let model = value as? any PersistentModel { return [model] }
        if let array = value as? any _ModelArray { return array._models }
        return []
    }
}
