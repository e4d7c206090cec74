public import Data
public import Domain
import Foundation

/// Sessions' refresh-token copies for revocation (``RevocationCopies``) as items of the store: one per
/// session, under the gateway's service `hardtack.gateway.revocation-copy` in the handle's first access
/// group (where its sessions are), its account the session id, its data the token (encrypted under the
/// store's key like every item, and under nothing else), its comment the token's expiry in milliseconds
/// (empty when unknown) and its description the issuer and client it was issued to: only copies of this
/// gateway's issuer and client are read, so that a token is never sent to another server or presented by
/// another client (a store whose gateways changed either keeps the old copies, unread, until they expire).
public struct StoreRevocationCopies: RevocationCopies {
    let store: any SecureItemStore
    let issuedTo: String

    static let service = GatewayStoreItems.service + ".revocation-copy"

    /// The copies in `store` of tokens `issuer` issued to `clientID`.
    public init(store: any SecureItemStore, issuer: String, clientID: String) {
        self.store = store
        issuedTo = issuer + " " + clientID
    }

    /// The query of the copies (of one session, when `key` is given).
    private func item(_ key: String? = nil, expiry: String? = nil) -> ItemAttributes {
        .genericPassword(
            service: Self.service, account: key, accessGroup: store.accessGroups.first, comment: expiry,
            description: issuedTo)
    }

    /// The copy of `token` for the session `key` names, to write with the session
    /// (``SecureStoreSessionRepository/replace(with:alongside:)``).
    public func companion(_ token: RefreshToken, for key: String) -> CompanionItem {
        let expiry = token.expiresAt.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? ""
        return CompanionItem(attributes: item(key, expiry: expiry), data: token.value)
    }

    /// Every copy, by session id; an item that holds no token is skipped.
    public func copies() async throws(AuthenticationError) -> [(key: String, token: RefreshToken)] {
        let items: [StoredItem]
        do throws(SecureStoreError) {
            items = try await store.find(item(), limit: .all, returning: .all)
        } catch .itemNotFound {
            return []
        } catch {
            throw .fromStore(error)
        }
        return items.compactMap { item in
            guard let key = item.attributes?.string(.account), let value = item.data else { return nil }
            let expiry = item.attributes?.string(.comment).flatMap(Int64.init).map {
                Date(timeIntervalSince1970: Double($0) / 1000)
            }
            return (try? RefreshToken(value: value, expiresAt: expiry)).map { (key, $0) }
        }
    }

    /// Removes `key`'s copy in one transaction if it still holds `token`.
    public func remove(_ key: String, ifStill token: RefreshToken) async throws(AuthenticationError) -> Bool {
        let item = item(key)
        do {
            return try await StoreThreads.run { () throws -> Bool in
                try store.transaction { transaction -> Bool in
                    let found: [StoredItem]
                    do {
                        found = try transaction.find(item, limit: .one, returning: .data)
                    } catch SecureStoreError.itemNotFound {
                        return false
                    }
                    guard let value = found.first?.data, value.constantTimeEquals(token.value) else { return false }
                    return try transaction.delete(item) > 0
                }
            }
        } catch let error as SecureStoreError {
            throw .fromStore(error)
        } catch {
            throw .storageFailed("unexpected failure")
        }
    }
}
