/// The tiles of one dispatch: a range of `WorkItem`s and how many workgroups they need in all.
struct PassWork {
    var base = 0
    var count = 0
    var tileCount = 0

    var isEmpty: Bool { tileCount == 0 }
}

/// Builds the work-item table every pass reads: each pass appends its items, then `finish` closes the pass.
/// A shader finds its item by binary search on `firstTile`, so one dispatch covers items of any sizes.
struct WorkListBuilder {
    private(set) var items: [WorkItem] = []
    private var passBase = 0
    private var tiles = 0

    /// Adds an item of `extent` (in the pass's units) covered by tiles of `tileSize`, starting at tile `origin`.
    mutating func add(item: Int, extent: (width: Int, height: Int), tileSize: (width: Int, height: Int),
                      origin: (x: Int, y: Int) = (0, 0)) {
        let across = (extent.width + tileSize.width - 1) / tileSize.width
        let down = (extent.height + tileSize.height - 1) / tileSize.height
        guard across > 0, down > 0 else { return }
        items.append(WorkItem(firstTile: UInt32(tiles), item: UInt32(item), tilesAcross: UInt32(across),
                              tileOrigin: UInt32(origin.x) | UInt32(origin.y) << 16))
        tiles += across * down
    }

    mutating func finish() -> PassWork {
        defer {
            passBase = items.count
            tiles = 0
        }
        return PassWork(base: passBase, count: items.count - passBase, tileCount: tiles)
    }
}

extension ComputeDispatch {
    /// A dispatch of `work`'s tiles, one workgroup each, spilling into grid rows past the device's x limit.
    init(pipeline: ComputePipeline, work: PassWork) {
        let maxGroupsX = Int(pipeline.context.limits.maxComputeWorkGroupCount.0)
        let perRow = max(1, min(work.tileCount, maxGroupsX))
        let rows = (work.tileCount + perRow - 1) / perRow
        let constants = PassConstants(workBase: UInt32(work.base), workCount: UInt32(work.count),
                                      tileCount: UInt32(work.tileCount), groupsPerRow: UInt32(perRow))
        self.init(pipeline: pipeline, pushConstants: constants.words, groupCountX: work.isEmpty ? 0 : perRow,
                  groupCountY: rows)
    }
}
