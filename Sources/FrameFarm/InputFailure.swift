import Foundation
import FrameFarmMedia

/// One input that could not be processed: what the batch summary records and what stderr shows as
/// `framefarm: <path>: <reason>`.
public struct InputFailure: Error, Codable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// Wraps any error thrown while handling `path` into one line a user can act on.
    public init(path: String, error: Error) {
        self.path = path
        switch error {
        case let failure as InputFailure: reason = failure.reason
        case let input as InputError: reason = input.description
        case let media as MediaError: reason = media.description
        case let described as CustomStringConvertible: reason = described.description
        default: reason = error.localizedDescription
        }
    }

    public var description: String { "\(path): \(reason)" }
}
