import Foundation
import FrameFarm

/// A one-line progress display on stderr, redrawn at most ten times a second; only used when stderr is a
/// terminal (never in logs or pipes). Thread-safe: a batch's workers report from their own threads, and a lock
/// keeps their redraws from interleaving.
final class ProgressLine: Sendable {
    private let label: String
    private let started = Date()
    private let lastDraw = Locked(Date.distantPast)

    init(label: String) { self.label = label }

    func update(fraction: Double, detail: String = "") {
        lastDraw.withLock { lastDraw in
            let now = Date()
            guard now.timeIntervalSince(lastDraw) >= 0.1 || fraction >= 1 else { return }
            lastDraw = now
            let elapsed = now.timeIntervalSince(started)
            let eta = fraction > 0.01 ? String(format: " ETA %.0fs", elapsed / fraction - elapsed) : ""
            let (width, shown) = Self.fit(columns: Terminal.columns ?? 80, fixed: label.count + 8 + eta.count, detail: detail)
            let filled = Int((min(1, max(0, fraction)) * Double(width)).rounded())
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let line = String(format: "\r%@ [%@] %3.0f%%%@%@", label, bar, fraction * 100, eta, shown)
            FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
        }
    }

    /// The bar's width and the detail shown (with its space) on a line of `columns`, one left free so the line
    /// never wraps: the bar shrinks from 30 to 10, then the detail goes, then the bar shrinks further.
    static func fit(columns: Int, fixed: Int, detail: String) -> (width: Int, detail: String) {
        let room = columns - 1 - fixed
        if room - detail.count - 1 >= 10 { return (min(30, room - detail.count - 1), " " + detail) }
        return (max(0, min(30, room)), "")
    }

    func finish() { lastDraw.withLock { _ in FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
}
