internal import CMicroHTTPD
import Data
import Foundation

extension MicroHTTPResponder {
    /// The answer to a head with a field whose name is not a token (RFC 9112 §5.1 has a server refuse a space
    /// before the colon): libmicrohttpd 0.9.75 keeps such a name, spaces and all, so `Transfer-Encoding : chunked`
    /// frames nothing here while a lenient proxy in front may read it, and the field would be passed upstream.
    static var invalidFieldName: HTTPResponse {
        refusal(400, "invalid_field_name", "a header field's name is not a token (a space before its colon?)")
    }

    /// The answer to a head with a field value holding a control character but a tab (RFC 9110 §5.5): a bare CR
    /// ends a line for some readers (a VT or FF for others), so passed upstream it could add a field there.
    static var invalidFieldValue: HTTPResponse {
        refusal(400, "invalid_field_value", "a header field's value holds a control character")
    }

    /// The answer to a request target with a space, a control character or a byte outside ASCII, which
    /// libmicrohttpd 0.9.75 takes.
    static var invalidTarget: HTTPResponse {
        refusal(400, "invalid_target", "the request target holds a space, a control character or a byte outside ASCII")
    }

    /// Whether `target` holds a space, a control character, DEL or a byte outside ASCII: none is in a target as
    /// RFC 9112 §3.2 writes it (a browser percent-encodes non-ASCII text). Such a byte that is not UTF-8 would
    /// also have been replaced when the target was read as text, so the handler would have seen another target.
    static func hasInvalidByte(_ target: String) -> Bool {
        target.utf8.contains { $0 <= 0x20 || $0 >= 0x7F }
    }

    /// The answer to a head with more than one `Host` field, one that holds no host, or none in HTTP/1.1 (RFC
    /// 9112 §3.2).
    static var invalidHost: HTTPResponse {
        refusal(400, "invalid_host", "the request must have one Host field, holding a host and an optional port")
    }

    /// The refusal of a request whose head frames its body in a way two readers could take differently (RFC
    /// 9112 §6): more than one `Content-Length`, both `Content-Length` and `Transfer-Encoding`, a
    /// `Transfer-Encoding` in HTTP/1.0, more than one, or one that is not `chunked` alone. libmicrohttpd 0.9.75
    /// reads the first `Content-Length`, and takes a body with a `Transfer-Encoding` other than exactly `chunked`
    /// (in any case) to run to the connection's end, so
    /// what a proxy in front took for the body would be read here as the next request (request smuggling);
    /// each is refused, and the connection closed after the answer. `nil` when the framing is sound.
    static func framingFault(_ framing: hardtack_mhd_head_span, version: UnsafePointer<CChar>?) -> HTTPResponse? {
        if framing.content_lengths > 1 {
            return refusal(400, "invalid_content_length", "the request has more than one Content-Length field")
        }
        guard framing.transfer_encodings > 0 else { return nil }
        if framing.content_lengths > 0 {
            return refusal(
                400, "conflicting_framing", "the request has both Transfer-Encoding and Content-Length: send one")
        }
        if let version, strcmp(version, "HTTP/1.0") == 0 {
            return refusal(400, "invalid_transfer_encoding", "an HTTP/1.0 request cannot have a Transfer-Encoding")
        }
        if framing.transfer_encodings == 1 && framing.chunked_only { return nil }
        if framing.transfer_encodings == 1 && framing.chunked_last {
            return refusal(
                501, "unsupported_transfer_coding", "this server takes a request body chunked, with no other coding")
        }
        return refusal(
            400, "invalid_transfer_encoding", "the request's Transfer-Encoding must be one field: chunked")
    }
}
