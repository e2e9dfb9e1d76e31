/// A set of property indexes (which to-many relationships of an object are loaded): bits in
/// one word for the first 64 properties, a `Set` only for an entity with more.
///
/// Objects ask it on every to-many access and prefetching fills it for every source object,
/// so membership is a bit test, and making or copying one allocates nothing.
struct PropertyIndexSet: Sequence, Equatable, ExpressibleByArrayLiteral, Sendable {
    private var bits: UInt64 = 0
    /// Indexes of 64 and above (nil until one is inserted).
    private var beyond: Set<Int>?

    init() {}

    init(_ indexes: some Sequence<Int>) {
        for index in indexes { insert(index) }
    }

    init(arrayLiteral indexes: Int...) { self.init(indexes) }

    var isEmpty: Bool { bits == 0 && (beyond?.isEmpty ?? true) }

    @inline(__always)
    func contains(_ index: Int) -> Bool {
        index < 64 ? bits & (1 << UInt64(index)) != 0 : beyond?.contains(index) ?? false
    }

    mutating func insert(_ index: Int) {
        precondition(index >= 0, "a property index is never negative")
        if index < 64 {
            bits |= 1 << UInt64(index)
        } else {
            var set = beyond ?? []
            set.insert(index)
            beyond = set
        }
    }

    mutating func remove(_ index: Int) {
        if index < 64 { bits &= ~(1 << UInt64(index)) } else { beyond?.remove(index) }
    }

    /// The indexes in increasing order (allocating nothing below 64).
    func makeIterator() -> Iterator { Iterator(bits: bits, beyond: beyond.map { $0.sorted() } ?? []) }

    struct Iterator: IteratorProtocol {
        fileprivate var bits: UInt64
        fileprivate var beyond: [Int]
        private var position = 0

        fileprivate init(bits: UInt64, beyond: [Int]) {
            self.bits = bits
            self.beyond = beyond
        }

        mutating func next() -> Int? {
            if bits != 0 {
                let index = bits.trailingZeroBitCount
                bits &= bits - 1
                return index
            }
            guard position < beyond.count else { return nil }
            defer { position += 1 }
            return beyond[position]
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.bits == rhs.bits && (lhs.beyond ?? []) == (rhs.beyond ?? [])
    }
}
