extension Range where Bound == Int {
    /// This range cut into `parts` consecutive ranges whose lengths differ by at most one (chunks of work for
    /// parallel workers, each moving forward through its own).
    public func split(into parts: Int) -> [Range<Int>] {
        precondition(parts >= 1)
        return (0..<parts).map { part in
            (lowerBound + count * part / parts)..<(lowerBound + count * (part + 1) / parts)
        }
    }
}
