import ArgumentParser
import Foundation
import FrameFarm

switch ProcessConfiguration.parsed {
case .success(let configuration): configuration.applyProcessWide(environment: ProcessInfo.processInfo.environment)
case .failure(let error):
    Terminal.printError(error.description)
    exit(ExitStatus.usage)
}

// Usage errors exit with 2 (not ArgumentParser's 64), as the README documents.
do {
    // Read as bytes: an argument naming a file whose name is not UTF-8 keeps its bytes (`ForeignNames`).
    let arguments = (1..<Int(CommandLine.argc)).map { index in
        ForeignNames.decode(UnsafeBufferPointer(start: CommandLine.unsafeArgv[index], count: strlen(CommandLine.unsafeArgv[index]!))
            .map { UInt8(bitPattern: $0) })
    }
    var command = try FrameFarmCommand.parseAsRoot(Terminal.attachingNegativeNumbers(arguments))
    try command.run()
} catch {
    let code = FrameFarmCommand.exitCode(for: error)
    if code == .validationFailure {
        FileHandle.standardError.write(Data((FrameFarmCommand.fullMessage(for: error) + "\n").utf8))
        exit(ExitStatus.usage)
    }
    // A run's own failure (OUT's summary.json cannot be written): one line as an input's failure reads, not
    // ArgumentParser's "Error:".
    if code == .failure, !(error is ExitCode) {
        Terminal.printError(FrameFarmCommand.message(for: error))
        exit(code.rawValue)
    }
    FrameFarmCommand.exit(withError: error)
}
