import Dispatch
import Foundation
import FrameFarm

/// SIGINT/SIGTERM: the first asks the batch to stop after the inputs in progress (their files are completed and
/// renamed into place); a second quits at once, deleting temporary files of writes still in progress (once a
/// `--json` summary being written is out whole). Either way the exit status is 130 (SIGINT) or 143 (SIGTERM).
final class SignalHandler: Sendable {
    /// Kept only so the sources live as long as the handler; never read after `install`.
    nonisolated(unsafe) private var sources: [DispatchSourceSignal] = []
    private let received = Locked<Int32?>(nil)
    private static let queue = DispatchQueue(label: "framefarm.signals")

    /// Call once, before the batch starts. `quitsAtOnce`: the first signal quits, its partial output removed (a
    /// command that makes one file has nothing to finish).
    func install(quitsAtOnce: Bool = false) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            // A queue of its own: a serial queue gets a thread even while every worker of the global pool is
            // blocked (a read waiting on a stalled server), so the second signal still quits at once.
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: Self.queue)
            source.setEventHandler { [self] in handle(signalNumber, quitsAtOnce: quitsAtOnce) }
            source.resume()
            sources.append(source)
        }
    }

    private func handle(_ signalNumber: Int32, quitsAtOnce: Bool) {
        let first = received.withLock { received in
            defer { received = received ?? signalNumber }
            return received == nil
        }
        if first, !quitsAtOnce {
            BatchCancellation.requestStop()
            Terminal.printError("stopping after the inputs in progress (signal again to quit now)")
        } else {
            BatchCancellation.removeTemporaryFiles()
            Terminal.printError("quit at once; finished outputs are kept, partial ones removed")
            // A summary being written goes out whole: a script reads all of it or none.
            Terminal.holdResults(upTo: 5)
            // _exit, not exit: other threads are still decoding and rendering, and exit's handlers would unload
            // the Vulkan driver and FFmpeg under them. Nothing is buffered (stderr is written directly).
            _exit(128 + signalNumber)
        }
    }

    /// 128 + the signal received, or nil when none was.
    var exitStatus: Int32? { received.withLock { $0.map { 128 + $0 } } }
}
