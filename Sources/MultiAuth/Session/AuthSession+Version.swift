extension AuthSession {
    /// Whether `other` is the same stored version of this session: same ``id`` and provider,
    /// the same access, refresh and id tokens, and the same access-token expiry to the
    /// millisecond (the precision stores keep). A refresh, a re-sign-in or another user's
    /// session is a different version. Used by conditional store writes.
    public func isSameVersion(as other: AuthSession) -> Bool {
        id == other.id && provider == other.provider
            && credentials.accessToken == other.credentials.accessToken
            && credentials.refreshToken == other.credentials.refreshToken
            && credentials.idToken == other.credentials.idToken
            && credentials.expiresAt?.roundedToMilliseconds == other.credentials.expiresAt?.roundedToMilliseconds
    }

    /// ``isSameVersion(as:)`` over optionals: two `nil`s match, `nil` and a session do not.
    public static func isSameVersion(_ lhs: AuthSession?, _ rhs: AuthSession?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let lhs?, let rhs?): lhs.isSameVersion(as: rhs)
        default: false
        }
    }
}
