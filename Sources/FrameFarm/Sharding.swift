import Foundation
import FrameFarmCore

/// One worker's part of a library: shard `index` of `count` (`--shard K/N`, K from 0).
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// More shards than any batch engine runs tasks of one job (Kubernetes allows 100,000 completions): a count
    /// beyond is a typo, and a worker would set aside room for every shard's load.
    public static let mostShards = 100_000

    public init(index: Int, count: Int) throws(ShardError) {
        guard (1...Self.mostShards).contains(count), (0..<count).contains(index) else {
            throw ShardError("shard \(index)/\(count) does not exist: K/N needs N from 1 to \(Self.mostShards) and K from 0 to N-1")
        }
        self.index = index
        self.count = count
    }

    /// `K/N`.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("--shard \(text) is not K/N (e.g. 0/4) or auto")
        }
        try self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard a batch engine gave this task, from its own variables in `environment` (the process's), read in
    /// this order: Kubernetes Indexed Jobs, Slurm job arrays, AWS Batch array jobs, Google Cloud Batch, Cloud Run
    /// jobs. Kubernetes does not expose the count: `shards` (`--shards`) or `FRAMEFARM_SHARDS` gives it.
    /// - Returns: the shard and the engine it came from, for the run's log.
    public static func fromEngine(environment: [String: String],
                                  shards: Int? = nil) throws(ShardError) -> (shard: Shard, engine: String) {
        func int(_ name: String) throws(ShardError) -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text) else { throw ShardError("\(name)=\(text) is not a whole number") }
            return value
        }
        var count = shards
        if count == nil { count = try int("FRAMEFARM_SHARDS") }
        let countSource = shards != nil ? "--shards \(count ?? 0)" : "FRAMEFARM_SHARDS=\(count ?? 0)"
        if let count, !(1...mostShards).contains(count) {
            throw ShardError("\(countSource): a shard count is from 1 to \(mostShards)")
        }
        /// The engine's own count, which a different --shards or FRAMEFARM_SHARDS contradicts: a worker would take
        /// another shard count's part, and inputs would be done twice or never.
        func checked(_ engineCount: Int, _ name: String) throws(ShardError) -> Int {
            if let count, count != engineCount {
                throw ShardError("\(countSource) but \(name)=\(engineCount): give the engine's count, or neither")
            }
            return engineCount
        }
        if let index = try int("JOB_COMPLETION_INDEX") {
            guard let count else {
                throw ShardError("JOB_COMPLETION_INDEX=\(index) (a Kubernetes Indexed Job) gives no shard count: "
                                 + "pass --shards N or set FRAMEFARM_SHARDS to the Job's completions")
            }
            return (try Shard(index: index, count: count), "Kubernetes Indexed Job")
        }
        if let id = try int("SLURM_ARRAY_TASK_ID") {
            return (try slurmShard(id: id, environment: environment, given: count.map { ($0, countSource) }), "Slurm job array")
        }
        let engines = [("AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE", "AWS Batch array job"),
                       ("BATCH_TASK_INDEX", "BATCH_TASK_COUNT", "Google Cloud Batch"),
                       ("CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT", "Cloud Run job")]
        for (indexName, countName, engine) in engines {
            guard let index = try int(indexName) else { continue }
            if let given = try int(countName) { return (try Shard(index: index, count: checked(given, countName)), engine) }
            guard let count else { throw ShardError("\(indexName)=\(index) but \(countName) is not set: pass --shards N") }
            return (try Shard(index: index, count: count), engine)
        }
        throw ShardError("--shard auto found no batch engine's task index (looked for JOB_COMPLETION_INDEX, "
                         + "SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX, BATCH_TASK_INDEX, CLOUD_RUN_TASK_INDEX): "
                         + "give --shard K/N")
    }

    /// A Slurm array may start at 1 or step by 2 (`--array=1-15:2`): the shard is (ID - MIN) / STEP. Given a
    /// shard count (`given`, FRAMEFARM_SHARDS or --shards, with where it came from) other than the array's, the
    /// array runs some of that many shards (failed ones again: `--array=3,7`), and each ID is its shard. Without
    /// one, a list of ids (`--array=1,4,9`) maps to no shards, and a one-task array other than `--array=0` is a
    /// re-run that would take the whole list: both are refused.
    private static func slurmShard(id: Int, environment: [String: String],
                                   given: (count: Int, source: String)?) throws(ShardError) -> Shard {
        func int(_ name: String) -> Int? { environment[name].flatMap { Int($0) } }
        guard let min = int("SLURM_ARRAY_TASK_MIN"), let max = int("SLURM_ARRAY_TASK_MAX") else {
            throw ShardError("SLURM_ARRAY_TASK_ID=\(id) without SLURM_ARRAY_TASK_MIN and _MAX")
        }
        let step = int("SLURM_ARRAY_TASK_STEP") ?? 1
        let count = int("SLURM_ARRAY_TASK_COUNT") ?? ((max - min) / Swift.max(1, step) + 1)
        guard count >= 1, min <= max, step >= 1 else {
            throw ShardError("the Slurm array's variables describe no tasks (ids \(min) to \(max), step \(step), \(count) tasks)")
        }
        // A lone task given a count of 1 names its shard too: only shard 0 exists.
        if let given, given.count != count || count == 1 {
            guard (0..<given.count).contains(id) else {
                throw ShardError("SLURM_ARRAY_TASK_ID=\(id) with \(given.source): with a shard count other than the "
                                 + "array's, each task id is its shard, 0 to \(given.count - 1)")
            }
            return try Shard(index: id, count: given.count)
        }
        guard count > 1 || id == 0 else {
            throw ShardError("a Slurm array of one task, id \(id): to run shard \(id) of an earlier run again, set "
                             + "FRAMEFARM_SHARDS to that run's shard count; to run the whole list in one task, --array=0")
        }
        guard (id - min) % step == 0, min + (count - 1) * step == max else {
            throw ShardError("the Slurm array (ids \(min) to \(max), step \(step), \(count) tasks) is not an evenly "
                             + "stepped range: submit --array=0-\(count - 1) (a range, optionally :STEP), or set "
                             + "FRAMEFARM_SHARDS to the shard count to run only the shards listed")
        }
        return try Shard(index: (id - min) / step, count: count)
    }

    /// This shard's inputs: a deterministic function of the whole list (any order: it is sorted here) and the
    /// count, the same in every worker, with every input in exactly one shard. Inputs are dealt largest first
    /// (ties by path) to the shard with the least work so far (`workOf`, e.g. file size), so the shards' totals
    /// stay close to the mean; among shards of equal work, to the one with fewest inputs. Returned sorted.
    public func inputs(of list: [String], workOf: (String) -> Int) -> [String] {
        let sized = list.map { (path: $0, work: Swift.max(0, workOf($0))) }
            .sorted { $0.work != $1.work ? $0.work > $1.work : $0.path < $1.path }
        var loads = ShardLoads(count: count)
        var mine: [String] = []
        for input in sized where loads.assign(work: input.work) == index {
            mine.append(input.path)
        }
        return mine.sorted()
    }

    /// Each shard's total work under `inputs(of:workOf:)`, for the log and the bench's balance figure.
    public static func totals(of list: [String], count: Int, workOf: (String) -> Int) -> [Int] {
        var loads = ShardLoads(count: count)
        for work in list.map({ Swift.max(0, workOf($0)) }).sorted(by: >) { _ = loads.assign(work: work) }
        return loads.totals
    }
}

/// `--shard` that names no shard, or an engine's variables that give none.
public struct ShardError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The shards' running totals as a binary min-heap of (total, inputs, index): the least loaded shard, then the
/// one with fewest inputs (inputs of no size are dealt round), then the lowest index, in O(log N) per input.
private struct ShardLoads {
    private var heap: [(total: Int, inputs: Int, index: Int)]

    init(count: Int) { heap = (0..<count).map { (0, 0, $0) } }

    var totals: [Int] {
        var totals = [Int](repeating: 0, count: heap.count)
        for entry in heap { totals[entry.index] = entry.total }
        return totals
    }

    /// Adds `work` to the least loaded shard and returns its index.
    mutating func assign(work: Int) -> Int {
        let index = heap[0].index
        heap[0].total += work
        heap[0].inputs += 1
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < heap.count, Self.less(heap[left], heap[least]) { least = left }
            if right < heap.count, Self.less(heap[right], heap[least]) { least = right }
            if least == parent { return index }
            heap.swapAt(parent, least)
            parent = least
        }
    }

    private static func less(_ a: (total: Int, inputs: Int, index: Int), _ b: (total: Int, inputs: Int, index: Int)) -> Bool {
        (a.total, a.inputs, a.index) < (b.total, b.inputs, b.index)
    }
}
