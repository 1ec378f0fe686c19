/// A one-tap answer as the emulated Truecaller app produces it: the four strings of a
/// `TCTrueProfileResponse` (Docs/Providers/Truecaller.md).
///
/// The sandbox cannot import the adapter; copy the fields into the adapter's
/// `TruecallerProfileResponse`. `description` hides the payload and the signature.
public struct TruecallerSignedProfile: Sendable, Hashable, CustomStringConvertible {
    /// Standard base64 of the profile JSON.
    public var payload: String
    /// Standard base64 RSASSA-PKCS1-v1_5 / SHA-512 signature over the UTF-8 bytes of ``payload``.
    public var signature: String
    /// Always `SHA512withRSA` unless a test changes it.
    public var signatureAlgorithm: String
    /// The nonce the answer claims to answer.
    public var requestNonce: String

    /// Creates a signed profile.
    public init(payload: String, signature: String, signatureAlgorithm: String, requestNonce: String) {
        self.payload = payload
        self.signature = signature
        self.signatureAlgorithm = signatureAlgorithm
        self.requestNonce = requestNonce
    }

    /// `TruecallerSignedProfile(<redacted>)`.
    public var description: String { "TruecallerSignedProfile(\(signatureAlgorithm), <redacted>)" }
}
