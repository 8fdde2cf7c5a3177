import Dispatch
import Foundation
import FrameFarm

/// SIGINT/SIGTERM: the first asks the batch to stop after the inputs in progress (their files are completed and
/// renamed into place); a second quits at once, deleting temporary files of writes still in progress. Either
/// way the exit status is 130 (SIGINT) or 143 (SIGTERM).
final class SignalHandler: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received: Int32?

    func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in handle(signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    private func handle(_ signalNumber: Int32) {
        let first = lock.withLock { () -> Bool in
            defer { received = received ?? signalNumber }
            return received == nil
        }
        if first {
            BatchCancellation.requestStop()
            Terminal.printError("stopping after the inputs in progress (signal again to quit now)")
        } else {
            BatchCancellation.removeTemporaryFiles()
            Terminal.printError("quit at once; finished outputs are kept, partial ones removed")
            // _exit, not exit: other threads are still decoding and rendering, and exit's handlers would unload
            // the Vulkan driver and FFmpeg under them. Nothing is buffered (stderr is written directly).
            _exit(128 + signalNumber)
        }
    }

    /// 128 + the signal received, or nil when none was.
    var exitStatus: Int32? { lock.withLock { received.map { 128 + $0 } } }
}
