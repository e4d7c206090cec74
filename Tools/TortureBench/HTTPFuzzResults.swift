/// What the HTTP fuzzer's requests got back.
struct HTTPFuzzResults {
    /// Answers by status (or "closed without an answer").
    var statuses: [String: Int] = [:]
    /// Requests that got neither an answer nor a close in time.
    var hangs: [String] = []
    /// Answers that are not HTTP, or server errors.
    var malformed: [String] = []
    /// Real requests, sent unchanged, that were closed without an answer.
    var unanswered: [String] = []

    /// Records request `index`'s reply; a `pristine` request (one of the contracts' own, unchanged) must be
    /// answered, even by a client that closed its side after sending it.
    /// `tolerated` are server errors that are right here (a 502 for an upstream's broken answer).
    mutating func record(
        _ index: Int, request: [UInt8], pristine: Bool = false, tolerated: Set<Int> = [], reply: LoopbackClient.Reply
    ) {
        if reply.timedOut {
            hangs.append("request \(index) (\(request.count) bytes)")
        } else if reply.refused {
            malformed.append("request \(index): connection refused")
        } else if reply.bytes.isEmpty {
            statuses["closed without an answer", default: 0] += 1
            if pristine {
                unanswered.append(
                    "request \(index): " + String(decoding: request.prefix(40), as: UTF8.self).debugDescription)
            }
        } else if let status = reply.status {
            statuses["\(status)", default: 0] += 1
            if status >= 500 && ![501, 503, 505].contains(status) && !tolerated.contains(status) {
                malformed.append("request \(index): status \(status)")
            }
        } else {
            malformed.append("request \(index): an answer that is not HTTP")
        }
    }
}
