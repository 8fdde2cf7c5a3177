import ArgumentParser
import FrameFarm

struct FrameFarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "framefarm",
        abstract: "Render how videos look on every device, and make trick-play thumbnails and posters, on any Vulkan GPU.",
        discussion: """
            Exit status: 0 when every input succeeded, 1 when some failed (each failure is one line \
            'framefarm: <path>: <reason>' on stderr), 2 for usage errors, 130 or 143 when interrupted (SIGINT, \
            SIGTERM). Shell completions: \
            'framefarm --generate-completion-script bash|zsh|fish'.
            """,
        subcommands: [PreviewCommand.self, ThumbnailsCommand.self, PosterCommand.self, ReportCommand.self,
                      ProbeCommand.self, LintCommand.self, DevicesCommand.self, SampleCommand.self])

    @Flag(help: "Print FrameFarm's version and the FFmpeg libraries and Vulkan loader it runs with.")
    var version = false

    func run() throws {
        guard version else { throw CleanExit.helpRequest(self) }
        try Terminal.writeLine(FrameFarmVersion.report(configuration: ProcessConfiguration.current))
    }
}
