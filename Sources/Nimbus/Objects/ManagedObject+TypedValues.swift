/// The copies a `@Managed` class keeps of its attributes, which its accessors read with no
/// call, no switch and no reference counting (decision 0036).
///
/// The object's ``values`` stay the only truth: the copies are made from them when they are
/// read from the store (a fetch, a fault firing), and any change to ``values`` (a set, a
/// refresh, a merge, an undo, turning into a fault) marks the copies stale; the next read
/// through an accessor makes them again. A copy is read only on the queue the context's own
/// check would pass in the same place.
///
/// What the macro writes for `var title: String?`:
///
/// ```swift
/// @exclusivity(unchecked) private final var __nimbusValue_title: String? = nil
/// var title: String? {
///     get {
///         _prepareTypedValues("title")
///         return __nimbusValue_title
///     }
///     set { setManagedValue(newValue, slot: 0) }
/// }
/// override func _loadTypedValues(from source: _TypedValueSource) {
///     super._loadTypedValues(from: source)
///     __nimbusValue_title = source.value(slot: 0)
/// }
/// ```
extension ManagedObject {
    /// Whether the accessors of a `@Managed` class may read their copies now: the copies
    /// match ``values`` and the caller may use the object's context here (checked as every
    /// entry point checks it: first the thread's innermost context, then the whole chain
    /// and the main queue). When it may not, the accessor takes the ordinary path, which
    /// stops the process with the confinement message.
    @inlinable @inline(__always)
    public final var _typedValuesReadable: Bool {
        let innermost = QueueConfinement.innermost
        guard typedValuesLoaded else { return false }
        guard let reference = contextReference else { return true }
        return innermost == Unmanaged.passUnretained(reference).toOpaque() || reference.isActiveOnCurrentThread
    }

    /// Makes the copies current before an accessor of `property` reads one: checks the
    /// queue (stopping the process off it, as every entry point does) and fires the fault
    /// when they are not. The copies of an object whose fault cannot be fulfilled read nil
    /// (as ``managedValue(slot:)`` does; the context's next save throws the read's error).
    @inlinable @inline(__always)
    public final func _prepareTypedValues(_ property: StaticString) {
        if !_typedValuesReadable { loadTypedValuesForReading(property) }
    }

    @usableFromInline @inline(never)
    final func loadTypedValuesForReading(_ property: StaticString) {
        checkQueue(property)
        let loaded = fireFaultIfNeeded()
        // Fulfilling a fault made the copies already.
        if typedValuesLoaded { return }
        _loadTypedValues(from: _TypedValueSource(values: values, slots: objectID.entity.typedSlots))
        typedValuesLoaded = loaded
    }

    /// Lets go of what the copies of a `@Managed` class's attributes hold (they read nil),
    /// so that turning an object into a fault frees its strings and data, as apps expect.
    func releaseTypedValues() {
        let slots = objectID.entity.typedSlots
        guard !slots.isEmpty else { return }
        _loadTypedValues(from: _TypedValueSource(values: nil, slots: slots))
    }

    /// Makes the copies of a `@Managed` class's attributes from ``values`` just read from
    /// the store; does nothing for other classes and for faults.
    @inline(__always)
    func loadTypedValuesIfTyped() {
        guard let values else { return }
        let slots = objectID.entity.typedSlots
        guard !slots.isEmpty else { return }
        _loadTypedValues(from: _TypedValueSource(values: values, slots: slots))
        typedValuesLoaded = true
    }
}

/// What ``ManagedObject/_loadTypedValues(from:)`` copies from: an object's values, read by
/// its class's slots (nil for every slot while the object is a fault that could not be
/// fulfilled).
public struct _TypedValueSource {
    @usableFromInline let values: [PropertyValue]?
    @usableFromInline let slots: [Int]

    init(values: [PropertyValue]?, slots: [Int]) {
        self.values = values
        self.slots = slots
    }

    /// The value of a slot as the copy holds it.
    @inlinable @inline(__always)
    public func value<Value: ManagedAttributeValue>(slot: Int) -> Value? {
        guard let values else { return nil }
        return Value(managedValue: values[slots[slot]])
    }
}
