import Domain

/// Runs an authentication step, turning its error into a command failure.
func authStep<Value>(_ body: () async throws(AuthenticationError) -> Value) async throws(CommandFailure) -> Value {
    do throws(AuthenticationError) {
        return try await body()
    } catch {
        throw .auth(error)
    }
}
