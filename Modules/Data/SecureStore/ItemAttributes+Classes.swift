/// Typed factories, one per item class: only the attributes the class allows have a label.
extension ItemAttributes {
    /// Generic-password attributes; unique key: access group, service, account.
    public static func genericPassword(
        service: String? = nil, account: String? = nil, accessGroup: String? = nil,
        label: String? = nil, comment: String? = nil, description: String? = nil, generic: [UInt8]? = nil
    ) -> ItemAttributes {
        ItemAttributes(
            checked: .genericPassword,
            [
                .service: service.map(AttributeValue.string), .account: account.map(AttributeValue.string),
                .accessGroup: accessGroup.map(AttributeValue.string), .label: label.map(AttributeValue.string),
                .comment: comment.map(AttributeValue.string), .description: description.map(AttributeValue.string),
                .generic: generic.map(AttributeValue.bytes),
            ])
    }

    /// Internet-password attributes; unique key: access group, server, protocol, port, path, account,
    /// security domain, authentication type.
    public static func internetPassword(
        server: String? = nil, account: String? = nil, protocol: InternetProtocol? = nil, port: Int? = nil,
        path: String? = nil, securityDomain: String? = nil, authenticationType: AuthenticationType? = nil,
        accessGroup: String? = nil, label: String? = nil, comment: String? = nil, description: String? = nil,
        generic: [UInt8]? = nil
    ) -> ItemAttributes {
        ItemAttributes(
            checked: .internetPassword,
            [
                .server: server.map(AttributeValue.string), .account: account.map(AttributeValue.string),
                .protocol: `protocol`.map { .string($0.rawValue) }, .port: port.map { .integer(Int64($0)) },
                .path: path.map(AttributeValue.string), .securityDomain: securityDomain.map(AttributeValue.string),
                .authenticationType: authenticationType.map { .string($0.rawValue) },
                .accessGroup: accessGroup.map(AttributeValue.string), .label: label.map(AttributeValue.string),
                .comment: comment.map(AttributeValue.string), .description: description.map(AttributeValue.string),
                .generic: generic.map(AttributeValue.bytes),
            ])
    }

    /// Certificate attributes; unique key: access group, certificate type, issuer, serial number.
    public static func certificate(
        certificateType: Int? = nil, issuer: [UInt8]? = nil, serialNumber: [UInt8]? = nil,
        subject: [UInt8]? = nil, accessGroup: String? = nil, label: String? = nil, comment: String? = nil,
        description: String? = nil, generic: [UInt8]? = nil
    ) -> ItemAttributes {
        certificateLike(
            .certificate, certificateType, issuer, serialNumber, subject, accessGroup, label, comment,
            description, generic)
    }

    /// Identity attributes (a certificate with its private key), keyed like a certificate.
    public static func identity(
        certificateType: Int? = nil, issuer: [UInt8]? = nil, serialNumber: [UInt8]? = nil,
        subject: [UInt8]? = nil, accessGroup: String? = nil, label: String? = nil, comment: String? = nil,
        description: String? = nil, generic: [UInt8]? = nil
    ) -> ItemAttributes {
        certificateLike(
            .identity, certificateType, issuer, serialNumber, subject, accessGroup, label, comment,
            description, generic)
    }

    /// Key attributes; unique key: access group, key class, key type, application label, application
    /// tag, key size.
    public static func key(
        keyClass: KeyClass? = nil, keyType: KeyType? = nil, applicationLabel: [UInt8]? = nil,
        applicationTag: [UInt8]? = nil, keySizeInBits: Int? = nil, accessGroup: String? = nil,
        label: String? = nil, comment: String? = nil, description: String? = nil, generic: [UInt8]? = nil
    ) -> ItemAttributes {
        ItemAttributes(
            checked: .key,
            [
                .keyClass: keyClass.map { .string($0.rawValue) }, .keyType: keyType.map { .string($0.rawValue) },
                .applicationLabel: applicationLabel.map(AttributeValue.bytes),
                .applicationTag: applicationTag.map(AttributeValue.bytes),
                .keySizeInBits: keySizeInBits.map { .integer(Int64($0)) },
                .accessGroup: accessGroup.map(AttributeValue.string), .label: label.map(AttributeValue.string),
                .comment: comment.map(AttributeValue.string), .description: description.map(AttributeValue.string),
                .generic: generic.map(AttributeValue.bytes),
            ])
    }

    // swift-format-ignore
    private static func certificateLike(
        _ itemClass: ItemClass, _ certificateType: Int?, _ issuer: [UInt8]?, _ serialNumber: [UInt8]?,
        _ subject: [UInt8]?, _ accessGroup: String?, _ label: String?, _ comment: String?,
        _ description: String?, _ generic: [UInt8]?
    ) -> ItemAttributes {
        ItemAttributes(
            checked: itemClass,
            [
                .certificateType: certificateType.map { .integer(Int64($0)) },
                .issuer: issuer.map(AttributeValue.bytes), .serialNumber: serialNumber.map(AttributeValue.bytes),
                .subject: subject.map(AttributeValue.bytes),
                .accessGroup: accessGroup.map(AttributeValue.string), .label: label.map(AttributeValue.string),
                .comment: comment.map(AttributeValue.string), .description: description.map(AttributeValue.string),
                .generic: generic.map(AttributeValue.bytes),
            ])
    }
}
