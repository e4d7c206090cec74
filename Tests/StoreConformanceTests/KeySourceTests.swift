import CSodium
import Data
import Domain
import StoreCore
import TestSupport
import Testing

/// Raw key material as the key source. (Environment variables and systemd credentials are read from
/// the process environment, which tests running in parallel cannot safely change; the command-line
/// tests cover them in a child process.)
@Suite struct KeySourceTests {
    private let query = ItemAttributes.genericPassword(service: "api", account: "alice")

    private func randomKey() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, 32)
        return bytes
    }

    @Test(arguments: StoreAdapter.all)
    func rawKeyMaterialCreatesAndReopensAStore(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let key = randomKey()
        do {
            let store = try fixture.open(.key(SecretBytes(key)))
            try store.add(query, data: secret("token"))
        }
        #expect(try fixture.open(.key(SecretBytes(key))).findString(query) == "token")
        #expect(throws: SecureStoreError.wrongKey) { try fixture.open(.key(SecretBytes(randomKey()))) }
        let short = #expect(throws: SecureStoreError.self) { try fixture.open(.key(SecretBytes(Array(key.prefix(31))))) }
        #expect(short?.isInvalidKeyMaterial == true)
        let mismatch = #expect(throws: SecureStoreError.self) { try fixture.open(.passphrase(secret("pass"))) }
        #expect(mismatch?.isKeySourceMismatch == true)
    }
}
