import CCurl

/// An easy handle of a ``CurlHandlePool`` with every option of one transfer set, and the header list it
/// points at, which lives until the handle is given back (``CurlTransfer/release(_:to:reusable:)``).
struct CurlConfiguredHandle {
    /// The pool's handle.
    let pooled: CurlHandlePool.Handle
    /// The request's header fields, as curl reads them during the transfer.
    let headers: UnsafeMutablePointer<curl_slist>?
    /// The handle, for curl's calls.
    var raw: UnsafeMutableRawPointer { pooled.raw }
}
