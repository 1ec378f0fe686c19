/// Why ``QRCode/init(encoding:minimumVersion:mask:)-(String,_,_)`` could not make a symbol: a
/// limit of ISO/IEC 18004:2015 at error-correction level M, or an argument out of range.
///
/// `description` names the limit and, for ``tooLong(byteCount:)``, the size; never the data.
/// Concurrency: a plain value.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There was no byte to encode.
    case empty
    /// The data is longer than a version 40 symbol holds at level M (2331 bytes; see
    /// ``QRCode/byteCapacity(version:)``).
    case tooLong(byteCount: Int)
    /// The minimum version asked for is outside 1...40.
    case versionOutOfRange(Int)
    /// The data mask asked for is outside 0...7 (§7.8.2).
    case maskOutOfRange(Int)

    /// One sentence naming the limit, e.g. `2332 bytes do not fit a version 40 QR code at level M`.
    public var description: String {
        switch self {
        case .empty: "a QR code needs at least one byte"
        case .tooLong(let count): "\(count) bytes do not fit a version 40 QR code at level M"
        case .versionOutOfRange: "QR versions are 1 to 40"
        case .maskOutOfRange: "QR masks are 0 to 7"
        }
    }
}
