import Foundation
import FrameFarmCore
import FrameFarmMedia

/// How a thumbnail's frame is found (`--seek`).
public enum SeekMode: String, Sendable, CaseIterable {
    /// The frame on screen at the thumbnail's time (decodes into GOPs).
    case exact
    /// The keyframe at or before the thumbnail's time (decodes keyframes only: fast).
    case keyframe
}

/// Decodes the frames of a list of target times on several threads at once: the targets are split into contiguous
/// chunks, each decoded by its own demuxer and decoder (single-threaded, so chunks, not slices, use the cores;
/// frame-threaded for fewer than two exact targets per worker). The first worker starts with every target; every other
/// one, and any worker done with its chunk, takes the later part of the largest chunk left, split at the GOP start
/// nearest its middle so that no GOP is decoded twice: a target's cost varies with its distance from the keyframe
/// before it, fixed chunks left one core idle for the last tenth of a long-GOP track, and chunks cut inside a GOP
/// decoded its start twice (all of it, for the exact poster candidates of a one-GOP clip). Where the container has no
/// index to find GOPs by, chunks are cut at their middle. Frames go through a bounded queue, so memory holds at most
/// `capacity` decoded frames however long the video. Frames no target needs are never kept; in keyframe mode non-key
/// frames are never decoded.
// Unchecked: its workers own FFmpeg readers (C handles), each on its own thread; the queue is under a condition lock.
final class ThumbnailFrameFeeder: @unchecked Sendable {
    struct Item {
        var index: Int
        var frame: DecodedFrame
        /// Damage that may show in the frame (`FrameReader.damage(reaching:recordedAfter:)`).
        var damagedTimes: [Double] = []
    }

    private let condition = NSCondition()
    private var queue: [Item] = []
    private var finishedWorkers = 0
    private var failure: Error?
    private let capacity: Int
    private let workers: Int
    /// Targets each worker has yet to start (under `condition`'s lock).
    private var remaining: [Range<Int>]
    /// Targets any worker takes before its own (`leading`), and which targets a worker has taken.
    private var leading: ArraySlice<Int>
    /// The leading targets, decoded with deblocking whatever `skipsDeblocking` says.
    private let measured: Set<Int>
    private var taken: [Bool]
    /// How many times a worker took targets from another (the first chunks of workers after the first included).
    private(set) var takeovers = 0
    /// Frames the workers' decoders put out (frames discarded before decoding are not counted).
    private(set) var framesDecoded = 0
    /// Corrupt-packet times seen by any worker.
    private(set) var corruptTimes: [Double] = []

    /// Starts decoding `targets` (stream times, ascending) of `path` in the background. With
    /// `skipsDeblocking` the decoders skip deblocking (see `FrameReader`): invisible once shrunk to a
    /// thumbnail. The targets listed in `leading` are decoded first, by whichever worker is free (in keyframe
    /// mode, where each target is a seek of its own, order costs nothing). With `referenceFramesOnly` an exact
    /// target gets the last frame at or before it that other frames refer to (`FrameReader`), for frames that
    /// need only lie near their times.
    init(path: String, analysis: StreamAnalysis?, targets: [Double], leading: [Int] = [], mode: SeekMode,
         referenceFramesOnly: Bool = false, skipsDeblocking: Bool, workers requested: Int, capacity: Int,
         maxPixels: Int) {
        workers = max(1, min(requested, targets.count))
        // With fewer than two targets per worker, one soon runs on alone with nothing left to take over (the frame
        // 10 s into a 20-s clip, 50 frames past its keyframe, while the other worker's first frame is long done):
        // frame threads let its decoder use the idle cores. With more, they cost more than they give (a tenth
        // more time for the 10-minute clip's 60); a lone target (a track's first thumbnail) is a keyframe's worth
        // of decoding, not worth the threads.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let decoderThreads = mode == .exact && (2..<(2 * workers)).contains(targets.count) ? max(2, cores / workers) : 1
        self.capacity = max(capacity, workers)
        remaining = [targets.indices] + Array(repeating: 0..<0, count: workers - 1)
        self.leading = leading[...]
        measured = Set(leading)
        taken = [Bool](repeating: false, count: targets.count)
        for worker in 0..<workers {
            Thread.detachNewThread { [self] in
                decode(path: path, analysis: analysis, targets: targets, worker: worker, mode: mode,
                       referenceFramesOnly: referenceFramesOnly, threads: decoderThreads,
                       skipsDeblocking: skipsDeblocking, maxPixels: maxPixels)
            }
        }
    }

    /// The next decoded frame (any order across chunks, ascending within one); nil when all are delivered.
    /// Rethrows the first decode error of any worker.
    func next() throws -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && finishedWorkers < workers && failure == nil { condition.wait() }
        if let failure { throw failure }
        guard !queue.isEmpty else { return nil }
        let item = queue.removeFirst()
        condition.broadcast()
        return item
    }

    /// Stops the workers early (after an error elsewhere) and lets them exit.
    func cancel() {
        condition.lock()
        if failure == nil { failure = CancellationError() }
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func push(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && failure == nil { condition.wait() }
        guard failure == nil else { return false }
        queue.append(item)
        condition.broadcast()
        return true
    }

    /// The next target for `worker` that no worker has taken yet: a leading one, else its own next one, else one
    /// taken from the worker with the most left. Nil when nothing is left that is worth taking.
    private func nextTarget(worker: Int, targets: [Double], reader: FrameReader) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while let index = leading.popFirst() ?? candidate(worker: worker, targets: targets, reader: reader) {
            if !taken[index] {
                taken[index] = true
                return index
            }
        }
        return nil
    }

    /// What `worker` will most likely read after its current target: a leading target, else its own next one,
    /// passing over those taken (a leading target stays in its chunk). With none left it takes targets from another
    /// worker's chunk, which start at a later GOP (or, without an index, are sought anyway), so nothing read so
    /// far is reused. A wrong guess costs time, never the frame.
    private func nextRead(worker: Int, targets: [Double]) -> NextRead {
        condition.lock()
        defer { condition.unlock() }
        let untaken = { (index: Int) in !self.taken[index] }
        guard let index = leading.first(where: untaken) ?? remaining[worker].first(where: untaken) else { return .nothing }
        return .time(targets[index])
    }

    /// `worker`'s own next target, else the first of those it takes from the worker with the most left: from the
    /// GOP start nearest the middle of that chunk (by `reader`'s index), or from its middle without an index.
    /// Call with `condition`'s lock held.
    private func candidate(worker: Int, targets: [Double], reader: FrameReader) -> Int? {
        if let index = remaining[worker].first {
            remaining[worker].removeFirst()
            return index
        }
        guard let victim = remaining.indices.max(by: { remaining[$0].count < remaining[$1].count }),
              remaining[victim].count >= 2 else { return nil }
        let left = remaining[victim]
        func gop(_ index: Int) -> Double? { reader.keyframeTime(atOrBefore: targets[index]) }
        let middle = left.lowerBound + left.count / 2
        let split: Int
        if gop(left.lowerBound) == nil {
            split = middle
        } else {
            // Nearest the middle, a later start first; never the victim's next target.
            let nearest = (0..<left.count).lazy.flatMap { [middle + $0, middle - $0] }
                .first { $0 > left.lowerBound && $0 < left.upperBound && gop($0 - 1) != gop($0) }
            guard let nearest else { return nil }
            split = nearest
        }
        remaining[victim] = left.lowerBound..<split
        remaining[worker] = (split + 1)..<left.upperBound
        takeovers += 1
        return split
    }

    private func decode(path: String, analysis: StreamAnalysis?, targets: [Double], worker: Int, mode: SeekMode,
                        referenceFramesOnly: Bool, threads: Int, skipsDeblocking: Bool, maxPixels: Int) {
        var error: Error?
        var corrupt: [Double] = []
        var decoded = 0
        do {
            let reader = try FrameReader(path: path, analysis: analysis, threads: threads,
                                         keyframesOnly: mode == .keyframe, referenceFramesOnly: referenceFramesOnly,
                                         skipsDeblocking: skipsDeblocking, maxPixels: maxPixels)
            var lastFrame: DecodedFrame?
            while let index = nextTarget(worker: worker, targets: targets, reader: reader) {
                let target = targets[index]
                // The padding search measures the leading targets' bars, which skipped deblocking moves by a row
                // or two (the blocks across a bar's edge read as picture).
                reader.skipsDeblocking = skipsDeblocking && !measured.contains(index)
                let damageBefore = reader.corruptPacketTimes.count
                let frame: DecodedFrame?
                switch mode {
                case .exact:
                    frame = try reader.frame(at: target, lastTime: lastFrame?.timeSeconds,
                                             then: nextRead(worker: worker, targets: targets)) ?? lastFrame
                case .keyframe:
                    // Targets that fall back to the same keyframe get it once decoded (`FrameReader`).
                    frame = try reader.keyframe(atOrBefore: target) ?? lastFrame
                }
                guard let frame else { throw InputError.noDecodableFrames }
                lastFrame = frame
                let damage = reader.damage(reaching: frame, recordedAfter: damageBefore)
                guard push(Item(index: index, frame: frame, damagedTimes: damage)) else { break }
            }
            corrupt = reader.corruptPacketTimes
            decoded = reader.framesDecoded
        } catch let thrown {
            error = thrown
        }
        condition.lock()
        corruptTimes += corrupt
        framesDecoded += decoded
        if let error, failure == nil { failure = error }
        finishedWorkers += 1
        condition.broadcast()
        condition.unlock()
    }
}
