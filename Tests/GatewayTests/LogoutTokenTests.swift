import Data
import Foundation
import Testing

/// The claims rules of a back-channel logout token, each broken once.
@Suite struct LogoutTokenTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func payload(_ edit: (inout [String: Any]) -> Void = { _ in }) -> Data {
        var claims: [String: Any] = [
            "iss": "https://id.example", "aud": "gw", "iat": now.timeIntervalSince1970, "jti": "j-1", "sid": "s-1",
            "sub": "alice", "events": [LogoutToken.event: [String: Any]()],
        ]
        edit(&claims)
        return try! JSONSerialization.data(withJSONObject: claims)
    }

    func token(_ edit: (inout [String: Any]) -> Void = { _ in }) throws(IDTokenError) -> LogoutToken {
        try LogoutToken(payload: payload(edit), issuer: "https://id.example", clientID: "gw", now: now)
    }

    @Test func aGoodTokenNamesItsSessionAndUser() throws {
        let logout = try token()
        #expect(logout.sessionID == "s-1" && logout.subject == "alice" && logout.tokenID == "j-1")
        #expect(try token { $0["sid"] = nil }.sessionID == nil)
        #expect(try token { $0["aud"] = ["other", "gw"] }.subject == "alice")
    }

    @Test func everyBrokenRuleIsRefused() {
        let broken: [(String, (inout [String: Any]) -> Void)] = [
            ("another issuer", { $0["iss"] = "https://other.example" }),
            ("another audience", { $0["aud"] = "other" }),
            ("too old", { $0["iat"] = 1_800_000_000 - 600 }),
            ("from the future", { $0["iat"] = 1_800_000_000 + 600 }),
            ("expired", { $0["exp"] = 1_800_000_000 - 1 }),
            ("no event", { $0["events"] = ["other": [String: Any]()] }),
            ("an event that is no object", { $0["events"] = [LogoutToken.event: "yes"] }),
            ("a nonce", { $0["nonce"] = "n" }),
            ("neither sid nor sub", { $0["sid"] = nil; $0["sub"] = nil }),
            ("no jti", { $0["jti"] = nil }),
            ("an empty jti", { $0["jti"] = "" }),
        ]
        for (rule, edit) in broken {
            #expect(throws: IDTokenError.self, "\(rule)") { _ = try token(edit) }
        }
    }
}
