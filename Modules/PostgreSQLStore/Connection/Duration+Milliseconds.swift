extension Duration {
    /// The duration in whole milliseconds, rounded up, at least 0 (for `poll` and libpq settings).
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(0, milliseconds)
    }

    /// The duration in whole seconds, rounded up, at least 0.
    var wholeSeconds: Int64 { (wholeMilliseconds + 999) / 1000 }
}
