import Data
import Domain
import Foundation

/// The logout tokens received, by `jti`, kept in the store so that every instance refuses one seen by any:
/// an item per token (its id hashed), added once, which a second add finds taken.
struct LogoutTokenLedger {
    let store: any SecureItemStore

    private static let service = GatewayStoreItems.service + ".logout-token"

    /// Records `logout` as received, with `until` (when a replay would be refused anyway for its `iat`) kept
    /// beside it for ``sweep(now:batch:)``; `false` when it was received before.
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

    /// Deletes at most `batch` entries whose time is past at `now` (a replay of theirs is refused for its
    /// `iat` anyway); how many.
    /// - Throws: ``AuthenticationError`` when the store cannot be read or written.
    func sweep(now: Date, batch: Int) async throws(AuthenticationError) -> Int {
        let entries: [StoredItem]
        do throws(SecureStoreError) {
            entries = try await store.find(.genericPassword(service: Self.service), limit: .all, returning: .all)
        } catch .itemNotFound {
            return 0
        } catch {
            throw .fromStore(error)
        }
        var removed = 0
        for entry in entries where removed < batch {
            guard let account = entry.attributes?.string(.account), let text = entry.data?.revealedString(),
                let until = Double(text), until < now.timeIntervalSince1970
            else { continue }
            do throws(SecureStoreError) {
                try await store.delete(.genericPassword(service: Self.service, account: account))
                removed += 1
            } catch .itemNotFound {
                // Another instance swept it first.
            } catch {
                throw .fromStore(error)
            }
        }
        return removed
    }

    /// The item's account: a hash of the issuer-chosen `jti`, so its length and characters are the store's.
    private static func account(_ logout: LogoutToken) -> String {
        GatewaySeal.derive(SecretBytes(utf8: "hardtack gateway logout token id"), purpose: logout.tokenID).withUnsafeBytes {
            $0.map { String(format: "%02x", $0) }.joined()
        }
    }
}
