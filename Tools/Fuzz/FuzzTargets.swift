#if HARDTACK_FUZZ
    #if canImport(Glibc)
        import Glibc
    #endif
    import Data
    import Domain
    import Foundation
    import SQLiteStore
    import StoreCore
    import DevelopmentServers

    /// The libFuzzer targets, chosen by `HARDTACK_FUZZ_TARGET`:
    /// - `auth-request`: the input read leniently as a request (request line, header lines, an empty
    ///   line, the body) and handed to the embedded auth server: its routing, and its form, JSON and
    ///   header parsing (the wire itself is libmicrohttpd's, fuzzed by its own project);
    /// - `reply`: a server reply (status, header lines, body) mapped by both gateways and `/api/me`;
    /// - `store-file`: the input as a store file, opened and read every way.
    enum FuzzTargets {
        private static let target = ProcessInfo.processInfo.environment["HARDTACK_FUZZ_TARGET"] ?? "auth-request"
        private static let server = EmbeddedAuthServer()
        private static let scratch: String = {
            let path =
                (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()) + "/hardtack-fuzz-\(getpid())"
            mkdir(path, 0o700)
            return path
        }()
        private static let key = SecretBytes([UInt8](repeating: 7, count: 32))

        /// Runs the selected target on `input`.
        static func run(_ input: [UInt8]) {
            switch target {
            case "reply": reply(input)
            case "store-file": storeFile(input)
            default: authRequest(input)
            }
        }

        private static func authRequest(_ input: [UInt8]) {
            let end =
                firstIndex(of: [13, 10, 13, 10], in: input).map { (head: $0, body: $0 + 4) }
                ?? firstIndex(of: [10, 10], in: input).map { (head: $0, body: $0 + 2) }
            let head = String(decoding: input[..<(end?.head ?? input.count)], as: UTF8.self)
            let body = Data(end.map { input[$0.body...] } ?? [])
            let lines = head.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            let requestLine = (lines.first ?? "").split(separator: " ", omittingEmptySubsequences: false)
            let request = HTTPRequest(
                method: requestLine.first.map(String.init) ?? "",
                path: requestLine.dropFirst().first.map(String.init) ?? "", headers: headers(lines.dropFirst()), body: body)
            wait { _ = await server.handle(request) }
        }

        private static func reply(_ input: [UInt8]) {
            guard let first = input.first else { return }
            let rest = Array(input.dropFirst())
            let split = firstIndex(of: [10, 10], in: rest)
            let fields = headers(String(decoding: rest[..<(split ?? 0)], as: UTF8.self).split(separator: "\n"))
            let body = Data(split.map { rest[($0 + 2)...] } ?? rest[...])
            let statuses = [200, 200, 200, 400, 401, 403, 429, 500, 503, 301]
            let response = HTTPResponse(
                status: statuses[Int(first >> 4) % statuses.count], headers: fields, body: body)
            let http = OneReplyClient(response)
            let now = Date()
            let oauth = OAuthAuthenticationGateway(http: http, clientID: "hardtack-cli", now: { now })
            let header = HeaderAuthenticationGateway(http: http, clientID: "hardtack-cli", now: { now })
            wait {
                do {
                    let session = try Session(
                        accessToken: AccessToken(value: SecretBytes(utf8: "a"), issuedAt: now, expiresAt: nil),
                        refreshToken: RefreshToken(value: SecretBytes(utf8: "r")), user: nil, method: .password)
                    let password = Credentials.password(username: "alice", password: SecretBytes(utf8: "wonderland"))
                    switch first & 7 {
                    case 0: _ = try await oauth.signIn(password)
                    case 1: _ = try await oauth.refresh(session)
                    case 2: _ = try await header.signIn(password)
                    case 3: _ = try await header.refresh(session)
                    case 4: try await oauth.revoke(session.refreshToken)
                    default: _ = try await ProfileAPI(http: http).me(session.accessToken)
                    }
                } catch {
                    _ = "\(error)"
                }
            }
        }

        private static func storeFile(_ input: [UInt8]) {
            let path = scratch + "/store.db"
            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard descriptor >= 0 else { return }
            _ = input.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard
                let store = try? SQLiteSecureItemStore.open(
                    at: path, keySource: .key(key), options: StoreOptions(busyTimeoutMilliseconds: 100))
            else { return }
            for query in [
                ItemAttributes.genericPassword(), .internetPassword(), .genericPassword(service: "s", account: "a"),
            ] {
                _ = try? store.find(query, limit: .all, returning: .all)
            }
            _ = try? store.verify()
        }

        private static let driver = AsyncDriver()

        /// Runs `body` on the concurrency runtime and waits for it (libFuzzer calls in synchronously).
        private static func wait(_ body: @escaping @Sendable () async -> Void) {
            driver.run(body)
        }

        /// `Name: value` lines as header fields; other lines are skipped.
        private static func headers(_ lines: some Sequence<Substring>) -> HTTPHeaders {
            var headers = HTTPHeaders()
            for line in lines {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { headers.add(String(parts[0]), String(parts[1].drop { $0 == " " })) }
            }
            return headers
        }

        private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard haystack.count >= needle.count else { return nil }
            for index in 0...(haystack.count - needle.count)
            where haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            return nil
        }
    }
#endif
