/// The differences between two sectioned lists of keys, as a results controller reports
/// them: few moves (objects that kept their relative order stay put), explicit inserts and
/// deletes of every object of an inserted or deleted section.
///
/// Applying the changes the batch way (remove deletes and moves at their old index paths
/// and deleted sections, add inserted sections, add inserts and moves at their new index
/// paths) turns `old` into `new`.
struct FetchedResultsDiff<Key: Hashable> {
    struct Section {
        var name: String
        var keys: [Key]
    }

    var sectionChanges: [FetchedResultsSectionChange] = []
    var objectChanges: [FetchedResultsObjectChange<Key>] = []

    var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }

    /// Computes the changes from `old` to `new`; `updated` tells which keys present in both
    /// changed their values.
    init(old: [Section], new: [Section], updated: (Key) -> Bool) {
        var newSectionIndex: [String: Int] = [:]
        for (index, section) in new.enumerated() { newSectionIndex[section.name] = index }
        var oldSectionIndex: [String: Int] = [:]
        for (index, section) in old.enumerated() { oldSectionIndex[section.name] = index }

        // Sections present in both that keep their relative order stay; others are deleted
        // and inserted again.
        let common = old.indices.filter { newSectionIndex[old[$0].name] != nil }
        let stayingPositions = Self.longestIncreasingSubsequence(common.map { newSectionIndex[old[$0].name]! })
        var stayingSections: Set<String> = []
        for position in stayingPositions { stayingSections.insert(old[common[position]].name) }
        for (index, section) in old.enumerated().reversed() where !stayingSections.contains(section.name) {
            sectionChanges.append(.init(type: .delete, name: section.name, sectionIndex: index))
        }
        for (index, section) in new.enumerated() where !stayingSections.contains(section.name) {
            sectionChanges.append(.init(type: .insert, name: section.name, sectionIndex: index))
        }

        var newPaths: [Key: ResultsIndexPath] = [:]
        for (s, section) in new.enumerated() {
            for (i, key) in section.keys.enumerated() { newPaths[key] = ResultsIndexPath(item: i, section: s) }
        }
        var oldKeys: Set<Key> = []
        // Objects that stay in a staying section and keep their relative order stay put.
        var staying: Set<Key> = []
        for section in old {
            for key in section.keys { oldKeys.insert(key) }
            guard stayingSections.contains(section.name), let target = newSectionIndex[section.name] else { continue }
            let kept = section.keys.filter { newPaths[$0]?.section == target }
            for position in Self.longestIncreasingSubsequence(kept.map { newPaths[$0]!.item }) { staying.insert(kept[position]) }
        }

        var deletes: [FetchedResultsObjectChange<Key>] = []
        var moves: [FetchedResultsObjectChange<Key>] = []
        var updates: [FetchedResultsObjectChange<Key>] = []
        for (s, section) in old.enumerated() {
            for (i, key) in section.keys.enumerated() {
                let path = ResultsIndexPath(item: i, section: s)
                guard let newPath = newPaths[key] else {
                    deletes.append(.init(type: .delete, item: key, indexPath: path, newIndexPath: nil))
                    continue
                }
                if !staying.contains(key) {
                    moves.append(.init(type: .move, item: key, indexPath: path, newIndexPath: newPath))
                } else if updated(key) {
                    updates.append(.init(type: .update, item: key, indexPath: path, newIndexPath: newPath))
                }
            }
        }
        var inserts: [FetchedResultsObjectChange<Key>] = []
        for (s, section) in new.enumerated() {
            for (i, key) in section.keys.enumerated() where !oldKeys.contains(key) {
                inserts.append(.init(type: .insert, item: key, indexPath: nil, newIndexPath: ResultsIndexPath(item: i, section: s)))
            }
        }
        objectChanges = deletes.reversed() + inserts + moves + updates
    }

    /// Positions (in `values`) of one longest strictly increasing subsequence, in order.
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        // tails[k]: position of the smallest tail of an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result: [Int] = []
        var current = tails.last!
        while current >= 0 {
            result.append(current)
            current = previous[current]
        }
        return result.reversed()
    }
}
