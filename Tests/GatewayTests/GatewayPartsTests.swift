import Data
import Domain
import Foundation
import TestSupport
import Testing

@testable import Gateway

/// The gateway's small parts: routes, return URLs, cookies and the seal.
@Suite struct GatewayPartsTests {
    @Test func routesJoinTheRestOfThePathAndTheQueryToTheUpstream() throws {
        let route = try #require(GatewayRoute("/api/=https://api.example/v1/"))
        #expect(route.origin.absoluteString == "https://api.example")
        #expect(route.upstreamTarget(for: "/api/items?a=1&b=%2F") == "/v1/items?a=1&b=%2F")
        #expect(route.upstreamTarget(for: "/api/") == "/v1/")
        #expect(route.upstreamTarget(for: "/api/a;b=1/%ff/..x/x..") == "/v1/a;b=1/%ff/..x/x..")
        #expect(route.upstreamTarget(for: "/other/items") == nil)
        // What a browser sends as it is but a URL may not hold is escaped; escapes already there are kept.
        #expect(route.upstreamTarget(for: "/api/a|b^c?f={\"x\":1}&g=<`>") == "/v1/a%7Cb%5Ec?f=%7B%22x%22:1%7D&g=%3C%60%3E")
        #expect(route.upstreamTarget(for: "/api/a#b?c#d") == "/v1/a%23b?c%23d")
        // Unescaped, curl took `#x` for a fragment and then removed the dot segment left: the upstream's `/`.
        #expect(route.upstreamTarget(for: "/api/..#x") == "/v1/..%23x")
        #expect(route.upstreamTarget(for: "/api/%7C.x|") == "/v1/%7C.x%7C")
        let bare = try #require(GatewayRoute("/data/=http://127.0.0.1:9000"))
        #expect(bare.upstreamTarget(for: "/data/x") == "/x")
        let six = try #require(GatewayRoute("/six/=http://[::1]:8080/base/"))
        #expect(six.origin.absoluteString == "http://[::1]:8080")
        #expect(six.upstreamTarget(for: "/six/x") == "/base/x")
    }

    @Test(arguments: [
        "/api/../admin", "/api/%2e%2e/admin", "/api/a/../../b", "/api/./x", "/api/a%5c..%5cb",
        // An escape that is not UTF-8 elsewhere in the path once let the whole path go undecoded.
        "/api/%2e%2e/admin/%ff", "/api/.%2E/x", "/api/..;/admin", "/api/%2e%2e;jsessionid=1/admin",
        "/api/a%2Fb/../../c", "/api/a%2fb", "/api/%zz/x", "/api/x%2", "/api/a%00b",
        // Bytes a path without escapes or dots may hold only when decoded (they take the decoding way).
        "/api/a\\b", "/api/a\\..\\b", "/api/a\u{0}b", "/api/a/\u{301}b",
    ])
    func aPathThatClimbsOutOfTheUpstreamGoesNowhere(_ target: String) throws {
        let route = try #require(GatewayRoute("/api/=https://api.example/v1/"))
        #expect(route.upstreamTarget(for: target) == nil)
    }

    @Test(arguments: [
        "api/=https://a.example/", "/api=https://a.example/", "/bff/=https://a.example/", "/api/=ftp://a.example/",
        "/api/=https://a.example/?q=1", "/api/=https://user:pw@a.example/", "/api/", "/a b/=https://a.example/",
        "/api/=not a url",
    ])
    func unusableRoutesAreRefused(_ text: String) {
        #expect(GatewayRoute(text) == nil)
    }

    @Test func returnURLsMustStayOnThisSite() {
        #expect(ReturnURL.validated(nil) == "/")
        #expect(ReturnURL.validated("/account?tab=1") == "/account?tab=1")
        for bad in [
            "https://evil.example/", "//evil.example", "/\\evil.example", "evil", "/a\r\nSet-Cookie: x=1", "/a b",
            "/\\\\evil",
        ] {
            #expect(ReturnURL.validated(bad) == nil, "\(bad)")
        }
    }

    @Test func aCookieIsReadByItsExactNameOnceAcrossFields() {
        let headers = HTTPHeaders([("Cookie", " a=1 ;b = 2;;c=x=y"), ("Other", "d=4"), ("cookie", "d=\t4\t; =5; e=")])
        #expect(CookieHeader.value("a", in: headers) == "1")
        #expect(CookieHeader.value("b", in: headers) == "2")
        #expect(CookieHeader.value("c", in: headers) == "x=y")
        #expect(CookieHeader.value("d", in: headers) == "4")
        #expect(CookieHeader.value("e", in: headers) == nil)
        #expect(CookieHeader.value("A", in: headers) == nil)
        #expect(CookieHeader.value("a", in: HTTPHeaders([("Cookie", "a=1"), ("Cookie", "a=2")])) == nil)
        #expect(CookieHeader.value("a", in: HTTPHeaders([("Cookie", "a=1; a=2")])) == nil, "twice in one field")
        #expect(CookieHeader.value("a", in: HTTPHeaders([("Cookie", "a= \t")])) == "", "a value of blanks is empty")
        #expect(CookieHeader.value("a", in: HTTPHeaders([("Cookie", " ;a=1;")])) == "1")
        #expect(CookieHeader.value("é", in: HTTPHeaders([("Cookie", "x=1; é=ü")])) == "ü")
        // A value ending in a character that joins what follows (U+0600) does not swallow the next cookie.
        #expect(CookieHeader.value("s", in: HTTPHeaders([("Cookie", "x=\u{600}; s=real")])) == "real")
    }

    @Test func aSessionCookieReadsBackAndNothingElseDoes() throws {
        let key = SecretBytes(GatewaySeal.random(32))
        let cookie = SessionCookie.fresh()
        let value = cookie.value(tagKey: key)
        #expect(value.utf8.count == 86 && cookie.sessionID.utf8.count == 32)
        let names = "__Host-hardtack"
        let read = try #require(
            SessionCookie(HTTPHeaders([("Cookie", "other=1; \(names)=\(value); x=y")]), name: names, tagKey: key))
        #expect(read.sessionID == cookie.sessionID && read.secret == cookie.secret)
        #expect(SessionCookie.sessionID(of: cookie.account) == cookie.sessionID)
        // Any character changed (id, secret or tag), cut short, doubled, of another name, or tagged under
        // another key: no session, before anything is read.
        for index in [0, 20, 40, 70, 85] {
            var tampered = Array(value)
            tampered[index] = tampered[index] == "A" ? "B" : "A"
            #expect(SessionCookie(HTTPHeaders([("Cookie", "\(names)=\(String(tampered))")]), name: names, tagKey: key) == nil)
        }
        #expect(SessionCookie(HTTPHeaders([("Cookie", "\(names)=\(value.dropLast())")]), name: names, tagKey: key) == nil)
        #expect(SessionCookie(HTTPHeaders([("Cookie", "\(names)=\(value); \(names)=\(value)")]), name: names, tagKey: key) == nil)
        #expect(SessionCookie(HTTPHeaders([("Cookie", "\(names)=!!!")]), name: names, tagKey: key) == nil)
        #expect(SessionCookie(HTTPHeaders([("Cookie", "hardtack=\(value)")]), name: names, tagKey: key) == nil)
        let otherKey = SecretBytes(GatewaySeal.random(32))
        #expect(SessionCookie(HTTPHeaders([("Cookie", "\(names)=\(value)")]), name: names, tagKey: otherKey) == nil)
        #expect(SessionCookie.sessionID(of: AccountName("alice")!) == nil)
    }

    @Test func theSealOpensOnlyWithItsKeyAndContext() throws {
        let key = SecretBytes(GatewaySeal.random(32))
        let plaintext = SecretBytes(utf8: "token-value")
        let sealed = GatewaySeal.seal(plaintext, key: key, context: "c", deterministic: false)
        #expect(GatewaySeal.open(sealed, key: key, context: "c") == plaintext)
        #expect(GatewaySeal.open(sealed, key: key, context: "d") == nil)
        #expect(GatewaySeal.open(sealed, key: SecretBytes(GatewaySeal.random(32)), context: "c") == nil)
        var flipped = sealed
        flipped[flipped.count - 1] ^= 1
        #expect(GatewaySeal.open(flipped, key: key, context: "c") == nil)
        // Random nonces: two seals differ; deterministic ones are equal, and still open.
        #expect(sealed != GatewaySeal.seal(plaintext, key: key, context: "c", deterministic: false))
        let first = GatewaySeal.seal(plaintext, key: key, context: "c", deterministic: true)
        #expect(first == GatewaySeal.seal(plaintext, key: key, context: "c", deterministic: true))
        #expect(first != GatewaySeal.seal(SecretBytes(utf8: "token-valuf"), key: key, context: "c", deterministic: true))
        #expect(GatewaySeal.open(first, key: key, context: "c") == plaintext)
    }

    @Test func theGatewaysComparisonSeesEveryByteAndTheLength() {
        // GatewaySeal.equal, the gateway's one constant-time comparison (sodium_memcmp).
        let value = GatewaySeal.random(32)
        #expect(GatewaySeal.equal(value, Array(value)))
        #expect(GatewaySeal.equal([], []))
        for position in [0, value.count - 1] {
            var changed = value
            changed[position] ^= 0x01
            #expect(!GatewaySeal.equal(value, changed))
        }
        #expect(!GatewaySeal.equal(value, Array(value.dropLast())))
        #expect(!GatewaySeal.equal(Array(value.dropLast()), value))
        #expect(!GatewaySeal.equal([], [0]))
    }

    @Test func aStreamCutShortIsLoggedWithWhyAndHowFarButNeverItsQueryOrBody() throws {
        let request = HTTPRequest(
            method: "GET", path: "/api/files/a?code=secret-code", headers: HTTPHeaders([("Cookie", "__Host-hardtack=abc")]),
            body: Data("body-bytes".utf8))
        var line = RequestLogLine(request: request, route: "/api/", status: 200, duration: .milliseconds(1500))
        #expect(!line.json.contains("stream"))
        line.cut = ("upstream_lost", 1_048_576)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.json.utf8)) as? [String: Any])
        #expect(fields["stream"] as? String == "upstream_lost" && fields["bytes"] as? Int == 1_048_576)
        #expect(fields["path"] as? String == "/api/files/a" && fields["status"] as? Int == 200)
        for secret in ["secret-code", "abc", "body-bytes"] { #expect(!line.json.contains(secret)) }
    }

    @Test func anErrorsBodyIsJSONThatShowsPathsAsWritten() throws {
        let reply = GatewayReply.error(401, "not_signed_in", "no session: sign in at /bff/login")
        let text = String(decoding: reply.body, as: UTF8.self)
        #expect(text == #"{"error":"not_signed_in","message":"no session: sign in at /bff/login"}"#, "no \\/ for a reader")
        #expect(reply.headers["Content-Type"] == "application/json" && reply.headers["Cache-Control"] == "no-store")
    }

    @Test func hexIsLowercaseTwoDigitsAByte() {
        #expect(Hex.lowercase([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.lowercase([UInt8]()) == "")
    }

    @Test func aLogLineIsOneJSONObjectWithoutTheQuery() throws {
        let request = HTTPRequest(method: "GET", path: "/api/\"x\\y\u{1}é/?code=secret", headers: HTTPHeaders())
        let line = RequestLogLine(request: request, route: "/api/", status: 200, duration: .microseconds(12_345)).json
        #expect(line == #"{"method":"GET","ms":12.345,"path":"/api/\"x\\y?é/","route":"/api/","status":200}"#)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(fields["path"] as? String == "/api/\"x\\y?é/" && fields["ms"] as? Double == 12.345)
        let slow = RequestLogLine(request: request, route: "none", status: 504, duration: .seconds(30) + .microseconds(7))
        #expect(slow.json.contains(#""ms":30000.007,"#))
        #expect(RequestLogLine.quoted("a\u{7F}b\tc") == #""a\u007fb\u0009c""#)
    }

    @Test func metricsCountedOnManyThreadsAddUp() async {
        let metrics = GatewayMetrics()
        // Each thread counts in its own copy: the exposition adds them all up.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await DedicatedThread.run {
                        for _ in 0..<250 {
                            metrics.record(route: "/api/", status: 200, duration: .milliseconds(1))
                            metrics.sessionRead(fromMemory: true)
                            metrics.upstream(seconds: 0.002)
                        }
                    }
                }
            }
        }
        let text = String(decoding: metrics.exposition().body, as: UTF8.self)
        #expect(text.contains(#"hardtack_gateway_requests_total{route="/api/",status="200"} 1000"#))
        #expect(text.contains(#"hardtack_gateway_session_reads_total{source="memory"} 1000"#))
        #expect(text.contains("hardtack_gateway_upstream_seconds_count 1000"))
        #expect(text.contains(#"hardtack_gateway_upstream_seconds_bucket{le="0.005"} 1000"#))
    }

    /// The HTTP server's connection figures appear when it tells them, and not otherwise.
    @Test func theConnectionFiguresAreExposedWhenTheServerTellsThem() {
        let metrics = GatewayMetrics()
        let told = String(
            decoding: metrics.exposition(connections: GatewayConnections(open: 7, timesFull: 3), limit: 1024).body, as: UTF8.self)
        let lines = Set(told.split(separator: "\n").map(String.init))
        #expect(lines.isSuperset(of: [
            "hardtack_gateway_connections 7", "hardtack_gateway_connection_limit 1024",
            "hardtack_gateway_connection_limit_reached_total 3", "# TYPE hardtack_gateway_connections gauge",
            "# TYPE hardtack_gateway_connection_limit_reached_total counter",
        ]))
        let untold = String(decoding: metrics.exposition(connections: nil, limit: 1024).body, as: UTF8.self)
        #expect(!untold.contains("hardtack_gateway_connection"), "\(untold)")
    }

    @Test func aLogLinesPathIsCutAtTwoHundredFiftySixScalarsAndAtItsFirstQueryByte() throws {
        // 300 two-byte scalars: the line keeps 256 of them, whole, and stays one JSON object.
        let long = "/api/" + String(repeating: "é", count: 300)
        let line = RequestLogLine(request: HTTPRequest(method: "GET", path: long, headers: HTTPHeaders()), route: "/api/",
            status: 200, duration: .microseconds(5)).json
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let path = try #require(fields["path"] as? String)
        #expect(path.unicodeScalars.count == 256 && path.hasPrefix("/api/é") && path.hasSuffix("é"))
        #expect(fields["ms"] as? Double == 0.005)
        // A `?` that a combining mark follows still starts the query: nothing after it is logged.
        let marked = HTTPRequest(method: "GET", path: "/api/p?\u{301}code=secret", headers: HTTPHeaders())
        let cut = RequestLogLine(request: marked, route: "/api/", status: 200, duration: .zero).json
        #expect(!cut.contains("secret") && cut.contains(#""path":"/api/p""#))
        // A negative duration (no clock gives one) is shown as 0, not a crash.
        let negative = RequestLogLine(request: marked, route: "/api/", status: 200, duration: .microseconds(-5)).json
        #expect(negative.contains(#""ms":0.000,"#))
    }
}
