extension HTTPHeaders {
    /// The length the fields declare: their one `Content-Length`, a decimal number of up to 18 digits (blanks
    /// around it allowed); `nil` when there is none, more than one, or one that is not such a number.
    public var contentLength: Int? {
        var declared: Int?
        for field in self where field.name.caseInsensitiveEquals("content-length") {
            let digits = Substring(field.value).trimmingOptionalWhitespace()
            guard declared == nil, (1...18).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let length = Int(digits)
            else { return nil }
            declared = length
        }
        return declared
    }
}
