import BenchSupport
import Foundation

/// What the gateway fuzz's requests got, and what reached the upstream.
struct GatewayFuzzTally {
    let count: Int
    var results = HTTPFuzzResults()
    var expectations: [GatewayRequestFuzz.Expectation?]
    /// Requests that were not served, or not refused, as they must be.
    var wrong: [String] = []
    /// Heads the upstream got that the checks refuse.
    var upstreamFaults: [String] = []
    /// The requests a finding is about.
    var flagged: [Int] = []
    /// Requests cut short or followed by more, sent with the client's close.
    var notWhole = 0
    /// Such requests whose connection the gateway still held 5 s after the client's close.
    var heldOpen: [String] = []
    /// How many requests reached the upstream.
    var upstreamCount = 0
    /// The bearers sent upstream.
    var bearers: Set<String> = []
    /// Mutated requests, their mark intact, that still asked for a broken answer and got a 502: excused once the
    /// upstream is found to have given them one.
    var pending502: [Int] = []

    /// A tally for requests `0..<count`.
    init(count: Int) {
        self.count = count
        expectations = Array(repeating: nil, count: count)
    }

    /// Records request `index`'s reply, and whether it came to what its expectation asks.
    mutating func record(
        _ index: Int, request: [UInt8], expectation: GatewayRequestFuzz.Expectation, reply: LoopbackClient.Reply
    ) {
        // An upstream's broken answer is the gateway's 502; whether it answered at all is checked below.
        if case .hostile = expectation {
            results.record(index, request: request, tolerated: [502], reply: reply)
        } else {
            // A mutated request may still ask for a broken answer: its 502 is excused when the upstream gave it one
            // (in ``match(_:host:cookie:)``), or when its mark was mutated, which leaves no way to tell.
            let asks = Self.asksForBrokenAnswer(request)
            results.record(
                index, request: request, pristine: expectation != .any, tolerated: asks ? [502] : [], reply: reply)
            let mark = Array("\r\nX-Fuzz-Index: \(GatewayRequestFuzz.mark(index))\r\n".utf8)
            if asks && reply.status == 502 && firstIndex(of: mark, in: request) != nil { pending502.append(index) }
        }
        expectations[index] = expectation
        let status = reply.status
        switch expectation {
        case .forwarded:
            let head = String(decoding: reply.bytes.prefix(4096), as: UTF8.self).lowercased()
            if status != 200 || !head.contains("\r\nx-upstream: 1\r\n") {
                flagged.append(index)
                wrong.append(
                    "request \(index): an intact call with the session answered \(status.map(String.init) ?? "nothing")"
                )
            } else if request.starts(with: Array("HEAD ".utf8))
                && (!head.contains("\r\ncontent-length: 11\r\n") || !head.hasSuffix("\r\n\r\n"))
            {
                // The upstream's answer to HEAD declares its GET's 11 bytes: passed on, with no body.
                flagged.append(index)
                wrong.append("request \(index): an intact HEAD's answer lost the upstream's length, or has a body")
            }
        case .hostile(let kind):
            let faults = Self.answerFaults(reply.bytes)
            if !faults.isEmpty || !HostileAnswer.allowed(kind).contains(status ?? 0) {
                flagged.append(index)
                wrong.append(
                    "request \(index): the upstream's answer \(kind) came back as \(status.map(String.init) ?? "nothing")"
                        + (faults.isEmpty ? "" : " with " + faults.joined(separator: ", ")))
            }
        case .refused where status != 401 && status != 403:
            flagged.append(index)
            wrong.append(
                "request \(index): a call without the session or X-CSRF answered \(status.map(String.init) ?? "nothing")"
            )
        default: break
        }
    }

    /// Records request `index`, cut short or followed by more and sent with the client's close: a fault when
    /// the gateway held its connection open (it can never become whole).
    mutating func recordNotWhole(_ index: Int, reply: LoopbackClient.Reply) {
        notWhole += 1
        if reply.timedOut {
            flagged.append(index)
            heldOpen.append("request \(index): cut short, its connection still open 5 s after the client's close")
        }
    }

    /// Whether `request` may still ask the upstream for a broken answer: it holds `X-Fuzz-Answer:` in any case,
    /// however a mutation spaced it (the upstream reads the field as HTTP does).
    static func asksForBrokenAnswer(_ request: [UInt8]) -> Bool {
        String(decoding: request, as: UTF8.self).lowercased().contains("x-fuzz-answer:")
    }

    /// What is wrong with the gateway's answer in `reply` to a call the upstream answered as ``HostileAnswer``
    /// gives: a head not HTTP/1.1 as written (a final status of 200 to 599), a field that is not a token or
    /// holds a control character, a hop-by-hop field, `Date`, `Content-Length` or `Content-Type` twice, two
    /// framings; anything but a 502 without the upstream's `X-Upstream`; a 204 with a length or bytes after its
    /// head; and, anywhere in it, a cookie the upstream planted (in its head or its trailers) or the field its
    /// `Connection` named.
    static func answerFaults(_ reply: [UInt8]) -> [String] {
        guard let end = firstIndex(of: [13, 10, 13, 10], in: reply) else { return reply.isEmpty ? [] : ["no head end"] }
        var faults: [String] = []
        let text = String(decoding: reply, as: UTF8.self).lowercased()
        for planted in ["planted", "injected=", "x-up-hop", "set-cookie: other="] where text.contains(planted) {
            faults.append("\(planted) passed back")
        }
        // The answer's head in a request's clothes, so that the upstream's parser reads its fields.
        let request = Array("GET / HTTP/1.1\r\n".utf8)
        guard let lineEnd = reply.firstIndex(of: 10),
            let match = String(decoding: reply[..<lineEnd], as: UTF8.self).wholeMatch(
                of: /HTTP\/1\.1 ([2-5][0-9][0-9]) [^\r]*\r/)
        else { return faults + ["a status line that is not HTTP/1.1 with a final status"] }
        let status = Int(match.1) ?? 0
        switch UpstreamHeadCheck.parse(request + reply[(lineEnd + 1)..<(end + 4)]) {
        case .failure(let fault): return faults + [fault.reason]
        case .success(let parsed):
            let names = parsed.fields.map(\.name)
            for name in ["keep-alive", "proxy-connection", "te", "upgrade", "trailer"] where names.contains(name) {
                faults.append("the field \(name)")
            }
            for name in ["date", "content-length", "content-type"] where names.filter({ $0 == name }).count > 1 {
                faults.append("\(name) twice")
            }
            if names.contains("content-length") && names.contains("transfer-encoding") { faults.append("two framings") }
            if status != 502 && !parsed.fields.contains(where: { $0.name == "x-upstream" && $0.value == "1" }) {
                faults.append("a \(status) that is not the upstream's")
            }
            if status == 204
                && (names.contains("content-length") || names.contains("transfer-encoding") || reply.count > end + 4)
            {
                faults.append("a 204 with a body or its length")
            }
            return faults
        }
    }

    /// Checks every head the upstream got, and matches them to the requests: an intact call with the session
    /// forwarded once, one without it never; an intact request's head with no trace of its cookie, `X-Hop` or
    /// its own `Authorization`.
    mutating func match(_ received: [RecordingUpstream.Received], host: String, cookie: String) {
        upstreamCount = received.count
        var seen = Array(repeating: 0, count: count)
        let cookieValue = Array((cookie.split(separator: "=", maxSplits: 1).last ?? "").utf8)
        for request in received {
            if let fault = request.fault {
                upstreamFaults.append("the upstream could not read a request: \(fault)")
                continue
            }
            let (faults, bearer) = UpstreamHeadCheck.faults(in: request.head, host: host, prefix: "/v1/")
            if let bearer { bearers.insert(bearer) }
            let index = UpstreamHeadCheck.fuzzIndex(of: request.head).flatMap { $0 >= 0 && $0 < count ? $0 : nil }
            var all = faults
            if let index, let expectation = expectations[index], expectation != .any {
                seen[index] += 1
                let text = String(decoding: request.head, as: UTF8.self).lowercased()
                if text.contains("\r\nx-hop:") { all.append("the field X-Hop, which Connection named") }
                if text.contains("evil-") { all.append("the browser's own Authorization") }
                if firstIndex(of: cookieValue, in: request.head) != nil {
                    all.append("the session cookie's value")
                }
            }
            if !all.isEmpty {
                if let index { flagged.append(index) }
                upstreamFaults.append(
                    "request \(index.map(String.init) ?? "?") sent upstream with " + all.joined(separator: ", "))
            }
        }
        // Every intact mark in a head given a broken answer (a mutation may have put a damaged copy first).
        let given = Set(
            received.filter { $0.answered != nil }.flatMap { request in
                UpstreamHeadCheck.fields("x-fuzz-index", in: request.head).compactMap {
                    GatewayRequestFuzz.index(marked: $0)
                }
            })
        for index in pending502 where !given.contains(index) {
            results.malformed.append("request \(index): a 502 with no broken answer from the upstream")
        }
        for index in 0..<count {
            switch expectations[index] {
            case .forwarded? where seen[index] != 1, .hostile? where seen[index] != 1:
                flagged.append(index)
                wrong.append(
                    "request \(index): an intact call with the session reached the upstream \(seen[index]) times")
            case .refused? where seen[index] != 0:
                flagged.append(index)
                wrong.append("request \(index): a call without the session or X-CSRF reached the upstream")
            default: break
            }
        }
    }
}
