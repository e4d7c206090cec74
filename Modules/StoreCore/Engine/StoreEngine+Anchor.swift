package import Data

/// The rollback anchor (``RollbackAnchorFile``): read before every read of the store's digest (in a
/// read snapshot, before the snapshot begins, so that every generation it holds was committed before
/// what the snapshot reads), compared with the digest's write generation, and raised after every
/// commit that sealed a new one.
extension StoreEngine {
    /// Finds the anchor `setting` names, or makes it when the store was `created` by this open or the
    /// setting allows it, from the store's digest as it is now.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when the anchor is missing (and may not be
    ///   made), damaged, or anchors another store; ``SecureStoreError/storage(_:)`` of kind `misuse`
    ///   for a store that cannot keep one (not of format 4, or one digest per group).
    package func attachAnchor(_ setting: RollbackAnchorSetting, created: Bool) throws(SecureStoreError) {
        let keys = try unlockedKeys()
        guard !storage.digestPerGroup, RowsDigest.carriesGeneration(.store, keys: keys) else {
            throw .storage(
                .store(
                    "a rollback anchor needs an SQLite store of format 4, and this one is of format \(header.version) "
                        + "(a key rotation without the anchor moves a store of format 2 or 3 to format 4)",
                    kind: .misuse))
        }
        // Under synchronous NORMAL a power cut may take back a commit whose anchor was raised (and
        // synced): every open would then refuse the store.
        guard options.durability == .full else {
            throw .storage(.store("a rollback anchor needs durable commits (synchronous FULL)", kind: .misuse))
        }
        let file = RollbackAnchorFile(path: setting.path, storeID: header.storeID)
        if try file.read() == nil {
            guard created || setting.createIfMissing else {
                throw .integrityFailure("the rollback anchor \(setting.path) \(RollbackAnchorFile.missing)")
            }
            anchor = nil
            try readSnapshot { () throws(SecureStoreError) in _ = try loadDigest(keys: keys) }
            try file.advance(to: openedDigests[Self.wholeStore]?.generation ?? 0)
        }
        anchor = file
    }

    /// The anchor's generation for a read of the store's digest about to be made: the one read before
    /// the open read snapshot began, or (in a write transaction, where no one else commits, or outside
    /// any transaction, where the digest's read comes after) the anchor as it is now; `nil` without an
    /// anchor. A generation not yet raised into the anchor is raised first.
    func anchorFloorForRead() throws(SecureStoreError) -> UInt64? {
        guard let anchor else { return nil }
        if let unanchoredGeneration { raiseAnchor(to: unanchoredGeneration) }
        if transactionDepth == 0, storage.isInTransaction, let anchorFloor { return anchorFloor }
        guard let floor = try anchor.read() else {
            throw .integrityFailure("the rollback anchor \(anchor.path) is missing (it was removed while the store was open)")
        }
        return floor
    }

    /// Refuses a store digest whose write generation (the one just opened) is older than the anchor's;
    /// raises the anchor to a newer one (committed, since it is in the store, but not yet raised: a
    /// writer killed between its commit and its raise).
    func checkAnchor(_ floor: UInt64) throws(SecureStoreError) {
        let generation = openedDigests[Self.wholeStore]?.generation ?? 0
        if generation > floor { raiseAnchor(to: generation) }
        guard generation < floor else { return }
        throw .integrityFailure(
            "the store is older than its rollback anchor \(anchor?.path ?? ""): it holds write \(generation), "
                + "and write \(floor) was committed (\(RollbackAnchorFile.olderCopy))")
    }

    /// Raises the anchor to a generation just committed. A failure cannot undo the commit: the
    /// generation is kept and raised again before the next check, and until then an older copy of the
    /// store back to the anchor's generation would not be told apart.
    func raiseAnchor(to generation: UInt64) {
        guard let anchor else { return }
        do {
            try anchor.advance(to: max(generation, unanchoredGeneration ?? 0))
            unanchoredGeneration = nil
        } catch {
            unanchoredGeneration = max(generation, unanchoredGeneration ?? 0)
        }
    }
}
