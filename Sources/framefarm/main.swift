import ArgumentParser
import Foundation

switch ProcessConfiguration.parsed {
case .success(let configuration): configuration.applyProcessWide(environment: ProcessInfo.processInfo.environment)
case .failure(let error):
    Terminal.printError(error.description)
    exit(ExitStatus.usage)
}

// Usage errors exit with 2 (not ArgumentParser's 64), as the README documents.
do {
    var command = try FrameFarmCommand.parseAsRoot()
    try command.run()
} catch {
    let code = FrameFarmCommand.exitCode(for: error)
    if code == .validationFailure {
        FileHandle.standardError.write(Data((FrameFarmCommand.fullMessage(for: error) + "\n").utf8))
        exit(ExitStatus.usage)
    }
    FrameFarmCommand.exit(withError: error)
}
