import Testing
@testable import Nimbus

/// The small collections keyed by property index that objects keep their to-many state in.
@Suite("Property index collections")
struct PropertyIndexCollectionTests {
    @Test("an index set holds indexes below and beyond 64, in order, and compares by members")
    func indexSet() {
        var set: PropertyIndexSet = [3, 0, 70]
        #expect(!set.isEmpty)
        #expect(set.contains(0) && set.contains(3) && set.contains(70))
        #expect(!set.contains(1) && !set.contains(64) && !set.contains(63))
        set.insert(63)
        set.insert(64)
        #expect(Array(set) == [0, 3, 63, 64, 70])
        set.remove(3)
        set.remove(70)
        set.remove(5)
        #expect(Array(set) == [0, 63, 64])
        #expect(set == PropertyIndexSet([64, 63, 0]))
        #expect(set != PropertyIndexSet([63, 0]))
        set.remove(64)
        #expect(set == PropertyIndexSet([63, 0]))
        #expect(PropertyIndexSet().isEmpty)
        var beyondOnly = PropertyIndexSet([100])
        beyondOnly.remove(100)
        #expect(beyondOnly.isEmpty && beyondOnly == [])
    }

    @Test("an index map sets, replaces, removes and lists its entries, the first one inline")
    func indexMap() {
        var map: PropertyIndexMap<String> = [:]
        #expect(map.isEmpty && map[0] == nil)
        map[4] = "four"
        map[1] = "one"
        map[9] = "nine"
        #expect(!map.isEmpty)
        #expect(map[4] == "four" && map[1] == "one" && map[9] == "nine" && map[2] == nil)
        map[1] = "uno"
        map[4] = "cuatro"
        #expect(map.map(\.index) == [4, 1, 9])
        #expect(map.map(\.value) == ["cuatro", "uno", "nine"])
        // Removing the inline entry moves the next one in.
        map[4] = nil
        #expect(map[4] == nil && map[1] == "uno" && map[9] == "nine")
        #expect(map.map(\.index) == [1, 9])
        map[9] = nil
        map[7] = nil
        #expect(map.map(\.index) == [1])
        map[1] = nil
        #expect(map.isEmpty && Array(map).isEmpty)
        let literal: PropertyIndexMap<Int> = [2: 20, 5: 50]
        #expect(literal[2] == 20 && literal[5] == 50)
    }
}
