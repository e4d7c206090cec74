/// Values kept per rows-digest scope (``StoreEngine/wholeStore``, or an access group's index): the
/// store-wide scope in a field of its own, the groups in a dictionary. A backend with one digest for
/// the store (SQLite) then never hashes an index, allocates dictionary storage or looks an entry up on
/// the hot path; the groups' dictionary stays empty, and an empty dictionary costs nothing to copy or
/// clear.
struct DigestScoped<Value> {
    /// The store-wide scope's value.
    private(set) var whole: Value?
    /// Each access group's value.
    private(set) var groups: [BlindIndex: Value] = [:]

    /// Whether `scope` is the store-wide one (the only scope of no bytes).
    @inline(__always)
    static func isWhole(_ scope: BlindIndex) -> Bool { scope.count == 0 }

    /// The value of `scope`, or `nil`; setting `nil` removes it.
    subscript(scope: BlindIndex) -> Value? {
        get { Self.isWhole(scope) ? whole : groups[scope] }
        set {
            if Self.isWhole(scope) {
                whole = newValue
            } else {
                groups[scope] = newValue
            }
        }
    }

    /// Whether `scope` has a value.
    func contains(_ scope: BlindIndex) -> Bool {
        Self.isWhole(scope) ? whole != nil : groups[scope] != nil
    }

    /// Changes the value of `scope` in place (no copy of it is made); `false`, and nothing done, when
    /// `scope` has none.
    mutating func modify(_ scope: BlindIndex, _ body: (inout Value) -> Void) -> Bool {
        if Self.isWhole(scope) {
            guard whole != nil else { return false }
            body(&whole!)
        } else {
            guard groups[scope] != nil else { return false }
            body(&groups[scope]!)
        }
        return true
    }

    /// Removes every value (without touching the groups' dictionary when it is already empty).
    mutating func removeAll() {
        whole = nil
        if !groups.isEmpty { groups = [:] }
    }
}
