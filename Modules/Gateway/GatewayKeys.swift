import Data
import Domain

/// The gateway's own key, kept in the store so that every instance sharing it has the same: it seals
/// the cookie that carries a sign-in in progress from `/bff/login` to `/bff/callback`.
enum GatewayKeys {
    private static let item = ItemAttributes.genericPassword(service: GatewayStoreItems.service, account: GatewayStoreItems.loginKeyAccount)

    /// The key, made (32 random bytes) by the first instance to ask. Read first, so that a start after the
    /// first adds nothing (PostgreSQL logs an `ERROR` for each add its unique index refuses).
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot keep or give it.
    static func loginKey(in store: any SecureItemStore) async throws(AuthenticationError) -> SecretBytes {
        do throws(SecureStoreError) {
            if let key = try await stored(in: store) { return try checked(key) }
            let made = SecretBytes(GatewaySeal.random(GatewaySeal.keyBytes))
            do {
                try await store.add(item, data: made)
                return made
            } catch .duplicateItem {
                // Another instance made it meanwhile: use that one.
                guard let key = try await stored(in: store) else {
                    throw SecureStoreError.integrityFailure("the gateway's key item is gone just after it was made")
                }
                return try checked(key)
            }
        } catch {
            throw .fromStore(error)
        }
    }

    /// The key kept in `store`, or `nil` when there is none yet.
    private static func stored(in store: any SecureItemStore) async throws(SecureStoreError) -> SecretBytes? {
        do {
            return try await store.find(item, limit: .one, returning: .data).first?.data
        } catch .itemNotFound {
            return nil
        }
    }

    /// `key`, when it is one.
    private static func checked(_ key: SecretBytes) throws(SecureStoreError) -> SecretBytes {
        guard key.count == GatewaySeal.keyBytes else {
            throw SecureStoreError.integrityFailure("the gateway's key item is not a 32-byte key")
        }
        return key
    }
}
