/// The list's rows after the filter, in sort order: positions into the sorted items, read in place.
///
/// An array of the rows themselves meant copying (and later releasing) every matching item on
/// each key typed into the filter: at 100,000 items that was most of a keystroke.
struct VisibleRows: RandomAccessCollection, Sendable, Equatable {
    private let sorted: [ScreenItem]
    /// Positions in `sorted` the filter let through; nil when it lets everything through.
    let positions: [Int]?

    init() {
        self.init(sorted: [], positions: nil)
    }

    init(sorted: [ScreenItem], positions: [Int]?) {
        self.sorted = sorted
        self.positions = positions
    }

    var startIndex: Int { 0 }
    var endIndex: Int { positions?.count ?? sorted.count }

    /// The index of the row at `sortedPosition` in the sorted items, if the filter let it through
    /// (`positions` ascend: a binary search).
    func index(ofSortedPosition sortedPosition: Int) -> Int? {
        guard let positions else { return sorted.indices.contains(sortedPosition) ? sortedPosition : nil }
        var low = 0, high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle] < sortedPosition { low = middle + 1 } else { high = middle }
        }
        return low < positions.count && positions[low] == sortedPosition ? low : nil
    }

    subscript(position: Int) -> ScreenItem {
        sorted[positions.map { $0[position] } ?? position]
    }

    static func == (lhs: VisibleRows, rhs: VisibleRows) -> Bool { lhs.elementsEqual(rhs) }
}
