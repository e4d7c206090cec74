import CommandLineKit

/// The options of `hardtack signin` that choose the flow and drive the code and device flows, listed first
/// among its options.
struct SignInFlowOptions: ParsableArguments {
    /// `--flow code|device|password`, if given.
    @Option(
        "--flow", value: "code|device|password",
        help: "How to sign in: code (the browser and a loopback redirect; the default without --username), device, "
            + "or password (implied by --username).")
    var flow: String?
    /// `--issuer URL`, if given.
    @Option(
        "--issuer", value: "URL", help: "The OpenID Connect / OAuth issuer to discover (code and device flows).")
    var issuer: String?
    /// `--scope SCOPES`, if given.
    @Option("--scope", value: "SCOPES", help: "The scope to ask for (default: \"openid profile\").", allowsEmpty: false)
    var scope: String?
    /// `--timeout SECONDS`: how long to wait for the browser, if given.
    @Option(
        "--timeout", value: "SECONDS", help: "How long to wait for the browser (default: 300).", range: 1...3600,
        invalidValue: "--timeout takes a whole number of seconds from 1 to 3600")
    var timeout: Int?
    /// `--client-secret-stdin`: whether a client secret comes from standard input.
    @Flag(
        "--client-secret-stdin",
        help: "Code and device flows: read a client secret from standard input, for servers that require one.")
    var readsClientSecret: Bool
}
