import Data
import Domain
import Foundation

/// The logout tokens received, by `jti`, kept in the store so that every instance refuses one seen by any:
/// an item per token (its id hashed), added once, which a second add finds taken.
struct LogoutTokenLedger {
    let store: any SecureItemStore

    private static let service = GatewayStoreItems.service + ".logout-token"

    /// Records `logout` as received, with `until` (when a replay would be refused anyway for its `iat`) kept
    /// beside it for a sweep to come (nothing removes entries yet); `false` when it was received before.
    /// - Throws: ``AuthenticationError`` when the store cannot record it.
    func remember(_ logout: LogoutToken, until: Date) async throws(AuthenticationError) -> Bool {
        do throws(SecureStoreError) {
            try await store.add(
                .genericPassword(service: Self.service, account: Self.account(logout)),
                data: SecretBytes(utf8: String(Int64(until.timeIntervalSince1970))))
            return true
        } catch .duplicateItem {
            return false
        } catch {
            throw .fromStore(error)
        }
    }

    /// Forgets `logout` (its sessions could not be ended, so the issuer may send it again).
    func forget(_ logout: LogoutToken) async {
        _ = try? await store.delete(.genericPassword(service: Self.service, account: Self.account(logout)))
    }

    /// The item's account: a hash of the issuer-chosen `jti`, so its length and characters are the store's.
    private static func account(_ logout: LogoutToken) -> String {
        GatewaySeal.derive(SecretBytes(utf8: "hardtack gateway logout token id"), purpose: logout.tokenID).withUnsafeBytes {
            $0.map { String(format: "%02x", $0) }.joined()
        }
    }
}
