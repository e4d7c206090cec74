#if HARDTACK_FUZZ
    #if canImport(Glibc)
        import Glibc
    #endif
    import Data
    import Domain
    import Foundation
    import SQLiteStore
    import StoreCore
    @testable import DevelopmentServers

    /// The libFuzzer targets, chosen by `HARDTACK_FUZZ_TARGET`:
    /// - `http-request`: the loopback server's request reader over a socket pair, then the embedded
    ///   auth server's routing and form and JSON parsing of whatever it accepted;
    /// - `reply`: a server reply (status, header lines, body) mapped by both gateways and `/api/me`;
    /// - `store-file`: the input as a store file, opened and read every way.
    enum FuzzTargets {
        private static let target = ProcessInfo.processInfo.environment["HARDTACK_FUZZ_TARGET"] ?? "http-request"
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
            default: httpRequest(input)
            }
        }

        private static func httpRequest(_ input: [UInt8]) {
            var ends: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { return }
            defer {
                close(ends[0])
                close(ends[1])
            }
            var size = Int32(1 << 20)
            setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(ends[1], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = input.withUnsafeBytes { send(ends[0], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(ends[0], Int32(SHUT_WR))
            let reader = HTTPRequestReader(headLimit: 16 * 1024, bodyLimit: 64 * 1024, timeout: 1)
            guard case .request(let request) = reader.read(from: ends[1]) else { return }
            wait { _ = await server.handle(request) }
        }

        private static func reply(_ input: [UInt8]) {
            guard let first = input.first else { return }
            let rest = Array(input.dropFirst())
            let split = firstIndex(of: [10, 10], in: rest)
            var headers = HTTPHeaders()
            for line in String(decoding: rest[..<(split ?? 0)], as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { headers.add(String(parts[0]), String(parts[1].drop { $0 == " " })) }
            }
            let body = Data(split.map { rest[($0 + 2)...] } ?? rest[...])
            let statuses = [200, 200, 200, 400, 401, 403, 429, 500, 503, 301]
            let response = HTTPResponse(
                status: statuses[Int(first >> 4) % statuses.count], headers: headers, body: body)
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
