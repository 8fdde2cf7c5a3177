// The engine's clients (the CLI, the bench) see the pure core types, never the media or gpu layers directly.
@_exported import FrameFarmCore
