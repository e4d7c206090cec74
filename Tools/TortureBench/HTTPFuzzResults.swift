/// What the HTTP fuzzer's requests got back.
struct HTTPFuzzResults {
    /// Answers by status (or "closed without an answer").
    var statuses: [String: Int] = [:]
    /// Requests that got neither an answer nor a close in time.
    var hangs: [String] = []
    /// Answers that are not HTTP, or server errors.
    var malformed: [String] = []

    /// Records request `index`'s reply.
    mutating func record(_ index: Int, request: [UInt8], reply: LoopbackClient.Reply) {
        if reply.timedOut {
            hangs.append("request \(index) (\(request.count) bytes)")
        } else if reply.refused {
            malformed.append("request \(index): connection refused")
        } else if reply.bytes.isEmpty {
            statuses["closed without an answer", default: 0] += 1
        } else if let status = reply.status {
            statuses["\(status)", default: 0] += 1
            if status >= 500 && status != 503 && status != 505 {
                malformed.append("request \(index): status \(status)")
            }
        } else {
            malformed.append("request \(index): an answer that is not HTTP")
        }
    }
}
