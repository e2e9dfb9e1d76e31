/// A small map from property index to a value (the committed members of an object's loaded
/// to-many relationships, the values built from them): the first entry is stored inline,
/// others in an array.
///
/// An object rarely has more than one or two loaded to-many relationships, and prefetching
/// fills one for each of tens of thousands of objects: so no hashing, and one entry
/// allocates nothing beyond its value.
struct PropertyIndexMap<Value>: Sequence, ExpressibleByDictionaryLiteral {
    private var first: (index: Int, value: Value)?
    private var rest: [(index: Int, value: Value)] = []

    init() {}

    init(dictionaryLiteral elements: (Int, Value)...) {
        for (index, value) in elements { self[index] = value }
    }

    var isEmpty: Bool { first == nil }

    subscript(index: Int) -> Value? {
        get {
            if let first, first.index == index { return first.value }
            for entry in rest where entry.index == index { return entry.value }
            return nil
        }
        set {
            if first?.index == index {
                if let newValue { first!.value = newValue } else { first = rest.isEmpty ? nil : rest.removeFirst() }
            } else if let position = rest.firstIndex(where: { $0.index == index }) {
                if let newValue { rest[position].value = newValue } else { rest.remove(at: position) }
            } else if let newValue {
                if first == nil { first = (index, newValue) } else { rest.append((index, newValue)) }
            }
        }
    }

    /// The entries, the first one set first.
    func makeIterator() -> Iterator { Iterator(map: self) }

    struct Iterator: IteratorProtocol {
        fileprivate let map: PropertyIndexMap
        /// -1 for the inline entry, then positions in `rest`.
        private var position = -1

        fileprivate init(map: PropertyIndexMap) { self.map = map }

        mutating func next() -> (index: Int, value: Value)? {
            defer { position += 1 }
            if position < 0 { return map.first }
            return position < map.rest.count ? map.rest[position] : nil
        }
    }
}

extension PropertyIndexMap: Sendable where Value: Sendable {}
