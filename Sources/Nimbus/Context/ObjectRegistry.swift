/// The objects a context holds, one per ID: the uniquing table.
///
/// Objects are held strongly, and released ones are swept out in bulk: an object that only
/// the registry still references has no unsaved changes (the context's change sets would
/// hold it too), so dropping it loses nothing. Holding objects strongly instead of weakly
/// keeps their reference counts inline: a weak reference gives every object a side table,
/// which makes every retain and release of it slower (see docs/decisions/0006).
///
/// The table is an open-addressing hash table with linear probing. An object's key is its
/// own ``ManagedObject/objectID``, so a slot holds the object and the ID's hash (compared
/// before the ID, and reused when the table grows), and hashing an ID is one multiplication.
/// Fetches register hundreds of thousands of objects; this is where they go.
struct ObjectRegistry {
    /// A power of two, at most half full.
    private var slots: ContiguousArray<ManagedObject?> = ContiguousArray(repeating: nil, count: 16)
    /// The hash of each slot's object's ID.
    private var hashes: ContiguousArray<UInt64> = ContiguousArray(repeating: 0, count: 16)
    /// 64 minus log2 of the slot count: a hash's top bits pick its home slot.
    private var shift: UInt64 = 60
    private(set) var count = 0
    /// The size past which the next registration sweeps released objects out.
    private var sweepThreshold = 1024
    /// When true, nothing is swept: the context keeps every object it registered.
    var retainsObjects = false
    /// While positive, registrations don't sweep (a fetch holds every object it registers).
    private var sweepsSuspended = 0

    private var mask: Int { slots.count - 1 }

    /// Keys come in runs of this many consecutive slots, so rows fetched in primary-key order
    /// land next to each other in memory.
    private static let runLength: UInt64 = 16

    /// An ID's hash: the top bits pick the home of its run of keys (Fibonacci hashing),
    /// bits 1–4 hold its place in the run, and bit 0 is set (0 marks an empty slot).
    @inline(__always)
    private static func hash(_ id: ManagedObjectID) -> UInt64 {
        let isTemporary = id.temporaryReference != 0
        let key = isTemporary ? id.temporaryReference : UInt64(bitPattern: id.primaryKey)
        var bits = key / runLength
        bits ^= UInt64(truncatingIfNeeded: id.entity.rootEntityNumber) << 48 ^ UInt64(id.storeKey) << 36
        if isTemporary { bits ^= 0x5555_5555_5555_5555 }
        return (bits &* 0x9E37_79B9_7F4A_7C15) & ~0x1F | (key % runLength) << 1 | 1
    }

    @inline(__always)
    private func home(_ hash: UInt64) -> Int {
        (Int(truncatingIfNeeded: hash >> shift) &+ Int(truncatingIfNeeded: (hash >> 1) & 0xF)) & mask
    }

    /// The slot holding the object with this ID, or the empty slot where it would go.
    @inline(__always)
    private func slot(for id: ManagedObjectID) -> (index: Int, found: Bool, hash: UInt64) {
        let hash = Self.hash(id)
        var index = home(hash)
        while true {
            let slotHash = hashes[index]
            if slotHash == 0 { return (index, false, hash) }
            if slotHash == hash && slots[index]!.objectID == id { return (index, true, hash) }
            index = (index + 1) & mask
        }
    }

    subscript(id: ManagedObjectID) -> ManagedObject? {
        let (index, found, _) = slot(for: id)
        return found ? slots[index] : nil
    }

    /// The object registered for an ID, or a new one `make` creates and the registry
    /// registers: one probe of the table for both.
    @inline(__always)
    mutating func object(for id: ManagedObjectID, orRegister make: () -> ManagedObject) -> (object: ManagedObject, isNew: Bool) {
        let (index, found, hash) = slot(for: id)
        if found { return (slots[index]!, false) }
        let object = make()
        if (count >= sweepThreshold && sweepsSuspended == 0) || (count + 1) * 2 > slots.count || object.objectID != id {
            register(object)
            return (object, true)
        }
        slots[index] = object
        hashes[index] = hash
        count += 1
        return (object, true)
    }

    /// Every registered object, released ones included until the next sweep.
    var all: [ManagedObject] { slots.compactMap { $0 } }

    /// Registers an object under its ID, replacing another object with the same ID.
    mutating func register(_ object: ManagedObject) {
        if count >= sweepThreshold && sweepsSuspended == 0 { sweep(makingRoomFor: 1) }
        let (index, found, hash) = slot(for: object.objectID)
        slots[index] = object
        hashes[index] = hash
        if !found {
            count += 1
            if count * 2 > slots.count { resize(minimumCapacity: count) }
        }
    }

    /// Sweeps once if due, then lets registrations grow the table without sweeping until
    /// ``resumeSweeps()``: for fetches, whose objects are all referenced by their result.
    mutating func suspendSweeps() {
        if count >= sweepThreshold { sweep() }
        sweepsSuspended += 1
    }

    mutating func resumeSweeps() {
        sweepsSuspended -= 1
        if sweepsSuspended == 0 { sweepThreshold = max(sweepThreshold, count * 2) }
    }

    /// Makes room for `extra` more objects, sweeping at most once.
    mutating func reserveCapacity(_ extra: Int) {
        if count + extra > sweepThreshold { sweep(makingRoomFor: extra) }
        if (count + extra) * 2 > slots.count { resize(minimumCapacity: count + extra) }
    }

    /// Removes an object registered under its ID (not another object with the same ID).
    mutating func remove(_ object: ManagedObject) {
        let (index, found, _) = slot(for: object.objectID)
        guard found, slots[index] === object else { return }
        removeSlot(at: index)
    }

    /// Gives a registered object a new ID (a temporary ID made permanent); returns the object
    /// that was registered under the old ID, if any.
    @discardableResult
    mutating func changeID(from old: ManagedObjectID, to new: ManagedObjectID) -> ManagedObject? {
        let (index, found, _) = slot(for: old)
        guard found, let object = slots[index] else { return nil }
        removeSlot(at: index)
        object.objectID = new
        register(object)
        return object
    }

    /// Gives many registered objects new IDs at once. When they are a large part of the
    /// table it is rebuilt once, instead of moving each object out and back in.
    mutating func changeIDs(_ changes: [(object: ManagedObject, id: ManagedObjectID)]) {
        guard changes.count * 4 >= count else {
            for (object, id) in changes { changeID(from: object.objectID, to: id) }
            return
        }
        for (object, id) in changes where self[object.objectID] === object { object.objectID = id }
        var oldSlots = Self.emptySlots(slots.count)
        swap(&oldSlots, &slots)
        hashes = Self.emptyHashes(slots.count)
        for case let object? in oldSlots {
            let hash = Self.hash(object.objectID)
            var index = home(hash)
            while hashes[index] != 0 { index = (index + 1) & mask }
            slots[index] = object
            hashes[index] = hash
        }
    }

    mutating func removeAll() {
        slots = ContiguousArray(repeating: nil, count: 16)
        hashes = ContiguousArray(repeating: 0, count: 16)
        shift = 60
        count = 0
        sweepThreshold = 1024
    }

    /// Drops every object nothing but the registry references, then sets the next
    /// threshold at twice what is left (so sweeps cost amortized constant time).
    mutating func sweep(makingRoomFor extra: Int = 0) {
        if !retainsObjects {
            var released = 0
            for index in slots.indices where slots[index] != nil {
                if isKnownUniquelyReferenced(&slots[index]) {
                    slots[index] = nil
                    hashes[index] = 0
                    released += 1
                }
            }
            if released > 0 {
                count -= released
                rehash(capacity: slots.count)
            }
        }
        sweepThreshold = max(1024, (count + extra) * 2)
    }

    // MARK: Table upkeep

    /// Empties a slot, moving later objects of the probe run back (no tombstones).
    private mutating func removeSlot(at removed: Int) {
        slots[removed] = nil
        hashes[removed] = 0
        count -= 1
        var hole = removed
        var index = (removed + 1) & mask
        while hashes[index] != 0 {
            let home = home(hashes[index])
            // Move the object into the hole unless its home lies cyclically in (hole, index].
            let stays = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index)
            if !stays {
                slots.swapAt(hole, index)
                hashes[hole] = hashes[index]
                hashes[index] = 0
                hole = index
            }
            index = (index + 1) & mask
        }
    }

    // Built in place: `init(repeating:count:)` takes an unspecialized path of the standard
    // library that retains the repeated `nil` once per slot.
    private static func emptySlots(_ count: Int) -> ContiguousArray<ManagedObject?> {
        ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: nil)
            initialized = count
        }
    }

    private static func emptyHashes(_ count: Int) -> ContiguousArray<UInt64> {
        ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: 0)
            initialized = count
        }
    }

    private mutating func resize(minimumCapacity: Int) {
        var capacity = slots.count
        while capacity < minimumCapacity * 2 { capacity *= 2 }
        rehash(capacity: capacity)
    }

    private mutating func rehash(capacity: Int) {
        var oldSlots = Self.emptySlots(capacity)
        var oldHashes = Self.emptyHashes(capacity)
        swap(&oldSlots, &slots)
        swap(&oldHashes, &hashes)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        let mask = capacity - 1
        for position in oldSlots.indices {
            guard let object = oldSlots[position].take() else { continue }
            let hash = oldHashes[position]
            var index = home(hash)
            while hashes[index] != 0 { index = (index + 1) & mask }
            slots[index] = consume object
            hashes[index] = hash
        }
    }
}
