/// Keys, signatures and tokens made once by Python `cryptography` 48 and PyJWT 2.15 (test-only
/// keys, no real account), so the tests check interoperability, not just our own round trips.
enum PeerFixtures {
    static let rsaPEM = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAq7xdwPvRjxGIqLVQs4aG
        5aI+HlWUOZKE6acZ980I0M7DBY+9tH/FK19MqzaYq6ZX9hSQTqaESmscnL0krqZ7
        hj1vHVxweP9e+g1Pb0GNBbyC5Gi4pM8JV2HlIz9B/0564Qqr8pJ7ReisJkjik5Yw
        QRpeAqCOM1qiCEkrM7G/upMo7Z0VETju3lyIhsX4Dh4+tdmWCrd5pKVjjfWG/0EX
        Hc2MAWPBA8OCLLnsEXFZ79VFb3aLbUrKHcGL7HHCsx26JCpxmGNo1HLOq9Q8ImVA
        h/Oohx18/rAmjBEjYLcDc/hLUgAivEAbPEBU/GQ9zun3wmoaonxwmLfl2fVBqJ/P
        7wIDAQAB
        -----END PUBLIC KEY-----
        """

    /// The message Truecaller-style checks sign: the ASCII bytes of a base64 payload string.
    static let rs512Message = "eyJ0eXAiOiJKV1QifQ"
    /// RSASSA-PKCS1-v1_5 SHA-512 over `rs512Message` with the key of `rsaPEM`, base64.
    static let rs512SignatureBase64 =
        "TkIsx9IthiupgRtpAdjwsI1XLRYEDJIEZTW0M3gHf3DkToIH74Vcf4oXnWhcu7YMHd0K9+ystddFTHYBl/PSToFDKkZos4h/HgJXIVhWItVyFpaUtTJnFCiiauNCuhor+KrtYR11ZGjvZFV4IFalQOw7188BajXmfCl9R2GaPF73kNHvTaRDOngLLvXdCfp7hvo96dcAfZbEdQmgXKsaQM0DAcKE2zSW+drxs8wMgeRdYiFQU56xYqW9fdddLRMIUrMjsJuvG+ZkdSoFSDalB6foh5yZpq+eFFVrm8r7jeO6rnR4WfB5TSgKCFwHSYgW5CT6naKVTt7BRNJOGd6mbw=="

    /// The same RSA key as a JWK (`rsa-1`) and a P-256 key (`ec-1`), with PyJWT's `key_ops`.
    static let jwks =
        #"{"keys": [{"kty": "RSA", "key_ops": ["verify"], "n": "q7xdwPvRjxGIqLVQs4aG5aI-HlWUOZKE6acZ980I0M7DBY-9tH_FK19MqzaYq6ZX9hSQTqaESmscnL0krqZ7hj1vHVxweP9e-g1Pb0GNBbyC5Gi4pM8JV2HlIz9B_0564Qqr8pJ7ReisJkjik5YwQRpeAqCOM1qiCEkrM7G_upMo7Z0VETju3lyIhsX4Dh4-tdmWCrd5pKVjjfWG_0EXHc2MAWPBA8OCLLnsEXFZ79VFb3aLbUrKHcGL7HHCsx26JCpxmGNo1HLOq9Q8ImVAh_Oohx18_rAmjBEjYLcDc_hLUgAivEAbPEBU_GQ9zun3wmoaonxwmLfl2fVBqJ_P7w", "e": "AQAB", "kid": "rsa-1"}, {"kty": "EC", "crv": "P-256", "x": "RkSg7CfgkaZlzHiQ1Eb5-wGYKINg4Cnlf8vgarM7lys", "y": "W_bBeF1dwgNIFcg3j4NhY9KJ1WRti4mCBToQMwbA3c0", "kid": "ec-1"}]}"#

    /// RS256, kid `rsa-1`: iss `https://issuer.example`, sub `user-1`, aud `client-1`,
    /// exp 1700003600, iat 1700000000.
    static let rs256Token =
        "eyJhbGciOiJSUzI1NiIsImtpZCI6InJzYS0xIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoidXNlci0xIiwiYXVkIjoiY2xpZW50LTEiLCJleHAiOjE3MDAwMDM2MDAsImlhdCI6MTcwMDAwMDAwMH0.h9AgCgMUp4hctWdxVBvQpD2Sgl-J_8ifZxiuk8nwsnhS5HIpV42n5_2ng-eryFkVDRoTZyGsEXjjtqdhxHNY47UwsLTIrHTOGYXeen18AAmppIchrncr70FdLJ3NadFJGp5HO1cEHGlsr3Gyr5lmQIy-TEAxSFYbsEYyQSMkS-jhKnBhvGlmj0UqlP1XdfcLHjPjxLwnwlc0K5L9FXRPrBxsIoSd-Hpin7K6jHtRzV_7N5acUPNkAFG4rfYdl9O13ZBwfRwA3vGv3QpzGMICYy8TkhRV0nVvYfY6xzuM7n-5BqtdbjKkuVLbqoadLo6Hq4SiiZjEgYVtvw_SzaGJwQ"

    /// ES256, kid `ec-1`: sub `user-2`, exp 1700003600.5 (fractional), iat 1700000000.
    static let es256Token =
        "eyJhbGciOiJFUzI1NiIsImtpZCI6ImVjLTEiLCJ0eXAiOiJKV1QifQ.eyJzdWIiOiJ1c2VyLTIiLCJleHAiOjE3MDAwMDM2MDAuNSwiaWF0IjoxNzAwMDAwMDAwfQ.V52nDumXxdxpZXv9j3KdGmWWWil7MlRch6mE3soxTP9sSY1suygXxxoqqj8SaPzeuLtAsJdEvcoDJ79nzKI56w"
}
