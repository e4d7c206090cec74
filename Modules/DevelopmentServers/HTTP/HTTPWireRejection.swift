/// A request the loopback server refuses before its handler sees it, with the status to answer.
struct HTTPWireRejection: Error, Equatable {
    /// 400, 408, 411, 413, 431 or 505.
    let status: Int
}
