/// The objects a context holds, one per ID: the uniquing table.
///
/// Objects are held strongly, and released ones are swept out in bulk: an object that only
/// the registry still references has no unsaved changes (the context's change sets would
/// hold it too), so dropping it loses nothing. Holding objects strongly instead of weakly
/// keeps their reference counts inline: a weak reference gives every object a side table,
/// which makes every retain and release of it slower (see docs/decisions/0006).
///
/// The table is an open-addressing hash table with linear probing, in memory of its own
/// (fetches register hundreds of thousands of objects, and array bookkeeping on every
/// probe showed up in profiles). An object's key is its own ``ManagedObject/objectID``, so
/// a slot holds the object and the ID's hash (compared before the ID, and reused when the
/// table grows). Consecutive keys of one entity land in consecutive slots, so rows fetched
/// in primary-key order stay in cache.
///
/// Confined to its context's queue, like the context's other state.
final class ObjectRegistry {
    /// A power of two, at most half full.
    private var capacity: Int
    /// Objects; a slot is initialized exactly when its hash is not 0.
    private var slots: UnsafeMutablePointer<ManagedObject>
    /// The hash of each slot's object's ID; 0 in empty slots.
    private var hashes: UnsafeMutablePointer<UInt64>
    /// 64 minus log2 of the capacity: a hash's top bits pick its home slot.
    private var shift: UInt64
    private(set) var count = 0
    /// The size past which the next registration sweeps released objects out.
    private var sweepThreshold = 1024
    /// Objects registered since the last sweep: a sweep at a quiet moment (a save, a fetch's
    /// start) is worth its cost once they are a good part of the table.
    private var registeredSinceSweep = 0
    /// While positive, registrations don't sweep (a fetch holds every object it registers).
    private var sweepsSuspended = 0
    /// When true, nothing is swept: the context keeps every object it registered.
    var retainsObjects = false
    /// Changes whenever slots change, so a probe's result is known to be still valid.
    private var version = 0

    private static let initialCapacity = 16

    init() {
        capacity = Self.initialCapacity
        shift = UInt64(64 - Self.initialCapacity.trailingZeroBitCount)
        (slots, hashes) = Self.allocate(Self.initialCapacity)
    }

    deinit {
        for index in 0..<capacity where hashes[index] != 0 { (slots + index).deinitialize(count: 1) }
        slots.deallocate()
        hashes.deallocate()
    }

    // MARK: Hashing

    /// Keys come in runs of this many consecutive slots.
    private static let runLength: UInt64 = 16

    /// An ID's hash: the top bits pick the home of its run of keys (Fibonacci hashing),
    /// bits 1–4 hold its place in the run, and bit 0 is set (0 marks an empty slot).
    @inline(__always)
    private static func hash(_ id: ManagedObjectID) -> UInt64 {
        let isTemporary = id.isTemporaryID
        let key = UInt64(bitPattern: id.key)
        var bits = key / runLength
        bits ^= UInt64(truncatingIfNeeded: id.entity.rootEntityNumber) << 48 ^ UInt64(id.storeKey) << 36
        if isTemporary { bits ^= 0x5555_5555_5555_5555 }
        return (bits &* 0x9E37_79B9_7F4A_7C15) & ~0x1F | (key % runLength) << 1 | 1
    }

    @inline(__always)
    private func home(_ hash: UInt64) -> Int {
        (Int(truncatingIfNeeded: hash >> shift) &+ Int(truncatingIfNeeded: (hash >> 1) & 0xF)) & (capacity - 1)
    }

    /// The slot holding the object with this ID, or the empty slot where it would go.
    @inline(__always)
    private func slot(for id: ManagedObjectID) -> (index: Int, found: Bool, hash: UInt64) {
        let hash = Self.hash(id)
        let mask = capacity - 1
        var index = home(hash)
        while true {
            let slotHash = hashes[index]
            if slotHash == 0 { return (index, false, hash) }
            if slotHash == hash && slots[index].objectID == id { return (index, true, hash) }
            index = (index + 1) & mask
        }
    }

    // MARK: Lookup and registration

    subscript(id: ManagedObjectID) -> ManagedObject? {
        let (index, found, _) = slot(for: id)
        return found ? slots[index] : nil
    }

    /// The object registered for an ID, or a new one `make` creates and the registry
    /// registers: one probe of the table for both.
    @inline(__always)
    func object(for id: ManagedObjectID, orRegister make: () -> ManagedObject) -> (object: ManagedObject, isNew: Bool) {
        let (index, found, hash) = slot(for: id)
        if found { return (slots[index], false) }
        let probed = version
        let object = make()  // (an initializer may itself register objects: then probe again)
        if version != probed || (count >= sweepThreshold && sweepsSuspended == 0) || (count + 1) * 2 > capacity || object.objectID != id {
            register(object)
            return (object, true)
        }
        (slots + index).initialize(to: object)
        hashes[index] = hash
        count += 1
        registeredSinceSweep += 1
        version &+= 1
        return (object, true)
    }

    /// Every registered object, released ones included until the next sweep.
    var all: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for index in 0..<capacity where hashes[index] != 0 { result.append(slots[index]) }
        return result
    }

    /// Registers an object under its ID, replacing another object with the same ID.
    func register(_ object: ManagedObject) {
        if count >= sweepThreshold && sweepsSuspended == 0 { sweep(makingRoomFor: 1) }
        let (index, found, hash) = slot(for: object.objectID)
        if found { slots[index] = object } else { (slots + index).initialize(to: object) }
        hashes[index] = hash
        version &+= 1
        if !found {
            count += 1
            registeredSinceSweep += 1
            if count * 2 > capacity { resize(minimumCapacity: count) }
        }
    }

    /// Sweeps once if due, then lets registrations grow the table without sweeping until
    /// ``resumeSweeps()``: for fetches, whose objects are all referenced by their result.
    func suspendSweeps() {
        if count >= sweepThreshold && sweepsSuspended == 0 { sweep() }
        sweepsSuspended += 1
    }

    func resumeSweeps() {
        sweepsSuspended -= 1
        if sweepsSuspended == 0 { sweepThreshold = max(sweepThreshold, count * 2) }
    }

    /// Makes room for `extra` more objects, sweeping at most once.
    func reserveCapacity(_ extra: Int) {
        if count + extra > sweepThreshold && sweepsSuspended == 0 { sweep(makingRoomFor: extra) }
        if (count + extra) * 2 > capacity { resize(minimumCapacity: count + extra) }
    }

    /// Removes an object registered under its ID (not another object with the same ID).
    func remove(_ object: ManagedObject) {
        let (index, found, _) = slot(for: object.objectID)
        guard found, slots[index] === object else { return }
        removeSlot(at: index)
    }

    /// Gives a registered object a new ID (a temporary ID made permanent); returns the object
    /// that was registered under the old ID, if any.
    @discardableResult
    func changeID(from old: ManagedObjectID, to new: ManagedObjectID) -> ManagedObject? {
        let (index, found, _) = slot(for: old)
        guard found else { return nil }
        let object = slots[index]
        removeSlot(at: index)
        object.objectID = new
        register(object)
        return object
    }

    /// Gives many registered objects new IDs at once. When they are a large part of the
    /// table it is rebuilt once, instead of moving each object out and back in. (Unlabeled
    /// pairs, as the save makes them: an array of differently labeled tuples would be
    /// converted element by element.)
    func changeIDs(_ changes: [(ManagedObject, ManagedObjectID)]) {
        guard changes.count * 4 >= count else {
            for (object, id) in changes { changeID(from: object.objectID, to: id) }
            return
        }
        for (object, id) in changes where self[object.objectID] === object { object.objectID = id }
        rehash(capacity: capacity, rehashingKeys: true)
    }

    func removeAll() {
        for index in 0..<capacity where hashes[index] != 0 { (slots + index).deinitialize(count: 1) }
        slots.deallocate()
        hashes.deallocate()
        capacity = Self.initialCapacity
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        (slots, hashes) = Self.allocate(capacity)
        version &+= 1
        count = 0
        sweepThreshold = 1024
        registeredSinceSweep = 0
    }

    /// Sweeps when at least a quarter of the table was registered since the last sweep, so
    /// objects an app fetched and dropped are let go at the next save or fetch, while a
    /// large table that barely changes is not swept at every save.
    func sweepIfWorthwhile() {
        guard sweepsSuspended == 0, count > 1024, registeredSinceSweep * 4 >= count else { return }
        sweep()
    }

    /// Drops every object nothing but the registry references, then sets the next
    /// threshold at twice what is left (so sweeps cost amortized constant time).
    func sweep(makingRoomFor extra: Int = 0) {
        if !retainsObjects {
            var released = 0
            for index in 0..<capacity where hashes[index] != 0 {
                if isKnownUniquelyReferenced(&slots[index]) {
                    (slots + index).deinitialize(count: 1)
                    hashes[index] = 0
                    released += 1
                }
            }
            if released > 0 {
                count -= released
                rehash(capacity: capacity)
            }
        }
        sweepThreshold = max(1024, (count + extra) * 2)
        registeredSinceSweep = 0
    }

    // MARK: Table upkeep

    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<ManagedObject>, UnsafeMutablePointer<UInt64>) {
        let slots = UnsafeMutablePointer<ManagedObject>.allocate(capacity: capacity)
        let hashes = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        return (slots, hashes)
    }

    /// Empties a slot, moving later objects of the probe run back (no tombstones).
    private func removeSlot(at removed: Int) {
        let mask = capacity - 1
        version &+= 1
        (slots + removed).deinitialize(count: 1)
        hashes[removed] = 0
        count -= 1
        var hole = removed
        var index = (removed + 1) & mask
        while hashes[index] != 0 {
            let home = home(hashes[index])
            // Move the object into the hole unless its home lies cyclically in (hole, index].
            let stays = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index)
            if !stays {
                (slots + hole).initialize(to: (slots + index).move())
                hashes[hole] = hashes[index]
                hashes[index] = 0
                hole = index
            }
            index = (index + 1) & mask
        }
    }

    private func resize(minimumCapacity: Int) {
        var newCapacity = capacity
        while newCapacity < minimumCapacity * 2 { newCapacity *= 2 }
        rehash(capacity: newCapacity)
    }

    /// Moves every object into a new table of `newCapacity` slots (hashing the IDs again
    /// when they changed).
    private func rehash(capacity newCapacity: Int, rehashingKeys: Bool = false) {
        version &+= 1
        let (oldSlots, oldHashes, oldCapacity) = (slots, hashes, capacity)
        capacity = newCapacity
        shift = UInt64(64 - newCapacity.trailingZeroBitCount)
        (slots, hashes) = Self.allocate(newCapacity)
        let mask = newCapacity - 1
        for position in 0..<oldCapacity where oldHashes[position] != 0 {
            let hash = rehashingKeys ? Self.hash(oldSlots[position].objectID) : oldHashes[position]
            var index = home(hash)
            while hashes[index] != 0 { index = (index + 1) & mask }
            (slots + index).initialize(to: (oldSlots + position).move())
            hashes[index] = hash
        }
        oldSlots.deallocate()  // every object was moved out
        oldHashes.deallocate()
    }
}
