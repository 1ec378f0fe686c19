import MultiAuthCrypto

/// Signing keys committed to the repository for the tests, so no test generates an RSA key at
/// run time (RSA key generation is slow and its time varies with the machine's load).
///
/// Test-only keys with no account or service behind them. Made once with OpenSSL 3.0:
/// `openssl genrsa -traditional 2048` (PKCS #1) and
/// `openssl ecparam -name prime256v1 -genkey -noout` (SEC 1). Each key is parsed once per
/// process (a `static let`); `PrivateKey` is immutable and safe to share across tasks.
///
/// Which test uses which key does not matter, as long as tests that need *different* keys
/// (an impostor, a rotation) take different ones.
package enum TestKeys {
    /// RSA-2048 key A: the default sandbox-style signing key of the tests.
    package static let rsaA = load(rsaAPEM)
    /// RSA-2048 key B: a second signer (an impostor, a rotated key).
    package static let rsaB = load(rsaBPEM)
    /// RSA-2048 key C: a third signer.
    package static let rsaC = load(rsaCPEM)
    /// RSA-2048 key D: a fourth signer.
    package static let rsaD = load(rsaDPEM)
    /// P-256 key A.
    package static let p256A = load(p256APEM)
    /// P-256 key B: a second P-256 signer.
    package static let p256B = load(p256BPEM)

    private static func load(_ pem: String) -> PrivateKey {
        do {
            return try PrivateKey(pemRepresentation: pem)
        } catch {
            fatalError("committed test key does not parse: \(error)")
        }
    }

    /// RSA-2048 key A, PEM.
    package static let rsaAPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAxYn7kBsWi/Yo6uaoFD1YIsDquAIMVaWiarR7CekzuT9jwdPf
        QGkzuUIC/mrDkVWqQTBa8NYbPtUucSDMom6niqyXRblSew1nTlOEdZh2F/Mm9rZ+
        r+C/H7JP/qDCh5tXCJ3fVszeMGmUQ0nJ0Cm4ICS9GG6F2X8jMM+QZjyZC8WGjBDi
        P0siA3LRB1b5Uw57e15gPtSsFus1XAkDE06vjvXOvdxKYkEOKr/TqaX2ajdqqgb3
        /TqvivjilXVGlXNFp9TRSt8RwmgmM6RiKl43fijfr0y+CzO2BQp0+rlxJO1obLrr
        4mE/J950GhwIh5nNHenznPJfkjG+plO02Tg4fQIDAQABAoIBAACD12gGU28aDKzq
        T7iyegn36k6skvgA0Lf3QhQaXSnqpgMjqhkZVwwLQTia/4xtEqVacwYb/k8Wa63I
        cmsqruTuqTnAPcQnU//LNYjRpFokh308I88av+XqZSFFil6AWIWjvwocK2Ix9np5
        mquKTHE/WyKTe1P9zRr2Q/x9fa3CjXzRkGZh5Ijs6VsFesobpn91CqlJZSORZlhy
        /HEPRJhs743pRCS21Ovwsn6l20f8hd4M8y5b0QU7Rg7AWBMpz1vXz9PkI2BgSXe9
        lHn6S4KfHNA78TJjcwdncStDbSZM5qDik4tE/Pk/6n2SYImtRF2I6ZkAmJrdSuFL
        0QHtduECgYEA5/8yoo5tjcpHDcWuI8Ngi+0889DoVGq8W+Z1X58aNIqZCYWp9NvA
        UTkgoYqAMR0HDcIRyoeyjTD24Bvm+xMDWwrTg/MsUb9ZPYXr9X+Y/RdB4KoViqXb
        EJYDb9amyPC211EQGcotzHNEXoyD3hIfANwBEC+6P7XWS9xw9qZo7zUCgYEA2fod
        KMe6XTbZTDetQDITOKer3Pr8zkySEpGZVItso/tM1giFOen+xydN8l3b8cMSaNwX
        FZevm0duy9PVLm/a9YSR/hGJYPPoch4s3LgvIjFfzxKMu3N23WZdhuZRyvh25JwB
        mE5FlHKwEcYoxFb6z+mce+oPvhedmcrA9ssiZSkCgYBUunhEtB3AvhJrLjomJ5HY
        KMGtDiv7wKugKK/PR20rqT6xIpbqrWM0hterB8k/pqlP1gPnYt3MAQj42lfmdJAy
        LOcI9sPF60ttU77Uf1Bhhp/xrEyHwYEbMp54tv1cv8UXKCzoLlXBqItcuJbkgNu/
        1ZmxzqyH3iIwvIapHieOzQKBgQCE4l5+auxpQTPNrC+ZcC2Zn1Y9vGD8H1/5o/t2
        uBy+B0h7PuyBNu6UWJjDRYb9Zu/FL09/YV6z6iNYbUaMLbKtdGlQGz7F9UvirhSp
        ZjuNu83tviA/co+nP22K/MQmWbyZd6XdRPJUImrGGyjlMSVsNL2qKTH5sAnrJNjo
        W0QXqQKBgEkjA0KUENVUQOpzoI0tuY11aV0bjOdnVzAkr34T+cXKtbvfGnUUb7/K
        37d/3VV8oajJjNJXNDrzo/sndYzDRfTLp00WVbgzt9Bdx2XL4zKzt/Ghhu9g0fku
        5pEq8Y3aWDY4RTxIgchfnSD0XDT4XlH/mlLbmMVvjrlJplqNgL4g
        -----END RSA PRIVATE KEY-----
        """

    /// RSA-2048 key B, PEM.
    package static let rsaBPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEpAIBAAKCAQEAjWBbhQcjk1bxYODjzkVepBbQSB9ZqoIc2YqYeY8nJTtc50Ty
        wN35Ghas6pXCMrlsFQwwln4Eb1uMt3HmbAhUy18hVo0N+mAdbGgP0F7xlCpTSwU1
        pM9ntUp+z7EEKqNf5u4Shd+bWFrLNrQYPvwshhCrZYFtjsqfS7LkHC08jX7kzbBF
        qeZ+VeZs4PfoqmlfeE7IHLhmt6YK43V0+Mxs17ohW4x175teZ+oFyXw+N1rHDESg
        SPJS02ILbY8jyFE+5mZlUqCysetqE1aTslgiVzmomsV3VKh7/WfJz4tIatP5BLLS
        +pXQ1PTgCLvGG+StFnnlhPKO6v2iwMUGyzayHwIDAQABAoIBAACRunycI2ccIO8R
        lQ4prxzVVodvgc2mw59b2Ys+h0d5++g0LXHmDfzpZ3ZMp9dBI1cUqdSm1ckLT0ll
        CfmYYofxuDs43rcdkFgmhDF6GGQT6iqi0Xb6TlqOykU8DG0N1UaFzjCYf8hcfE5L
        bbtBp68pvaKgfyIqjk/gcvJ0tntIIqRUShVQwtXPjIHUt2GqmDjZ3abHevaAoojN
        TvXUzuMqy2PQy4w7MyCSkbmynJ8dgebee7Uo2bcM9HKWK40Eqgl5H9rjTI3qdy3b
        z3Hjnr6bYpkQ6tsTQsLA9AoMkkf6R15raR47U4cnqVxs7L7SXDsWOYC0lPwAXJah
        8q40YUECgYEAwIL+fHPHCsyPzG36b8NuU6APc4JnPhKW0jiLLzf89izngZG86Ft9
        a1O4wC1AvOBPSAzZ+bY/rlvFmWqrqx79e6C54V9zB0IPMF6V5jICbC8WnVBk0POH
        h+oMmfafdx1BT+3llX/E5PL6V9hEUXY21YWmg9tyEKE9NhjSiapbgsECgYEAvAA2
        B/siQLjWaWF/aWHWB1hnlorRBGTTHNtGcNNH4doup9pY4hDC5TuqNfD6PBeGr1M4
        Peww6sj5R7vE2pKoEooieimBRJ6X45K75+NflOC1CPy3Nzuqfx/ozTDyEGzba1TO
        D9IRquchZV34ufVQIxmU1W+CzyM+036R4cLOzN8CgYBQmohTM2azbtMGlUW2Ze1b
        tjjB9Gel5cKgYmxkaNzRdhu4dHzUDPqGZZeFX20rp/+J+1eI5nXjWylxAui9zUv0
        52bspjpTX6Vcaz34FBhPk6e0VmTf2Bd3INgF3u0FwooGHWVzIvwdoF6RSUvRj92F
        qV/+9XLc46XtcJc2bM3EAQKBgQCBUIfZz4VNDZb2H4k7XH+Sx91g8JU7N3r7U1zN
        iJbeJGyJKqiOv0a/1N2Mgvgs02XiPRTniwpOxPSqwd5zFgOj1P5IFzqCj7Acajb0
        FzMMvc/ooaQIyvLIxJMmaO9oGuiGmGuw+CcM7jTLe+r1Rmbb7eGxOiW5Ax5Y7au8
        pXoH8wKBgQCnGYIoEliDM0jJgErjH3qfWj3ukQIxlIODgFpUPoRPN5Pqpl/DN3q4
        ADMi+AghC9m+Rx5ydsyCzotgutGNX6820022YA+l1vYXqtN6suXxD3CMwCYJIJqb
        FZf+tDNrVjJcOCLy2ntcbXPtVaJTH5XQ+Yu9ONOwvrDLJgKablHFGg==
        -----END RSA PRIVATE KEY-----
        """

    /// RSA-2048 key C, PEM.
    package static let rsaCPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEogIBAAKCAQEAvEQGuMBTtdRI4PCtldx0W3prW00pOPCzaur9c2UE/ZryTHyv
        HObV4ha3r1kYLUT+km8VleQo42IiLT9YepI6e8ZN9te7znwk9WAn4ToxAqhnf1jK
        6/QIrd4rYm0Jo02IX6tBG+UlkaYRdq6p/8gcLb4yAomkbCn2kbtj3DRv2/M6Opcc
        geQisUeB7fUve2h2fOeLS9uW8vrevRnmN5yF8uDWRDlthgOM87Xuz2jNyQ9fK+ys
        770Ybj15ThD6v5B9ZzBdD7XUt+ktvDmSWSyyzTBQVuNTLjD4N6/ELtNLUDFvLmBM
        YP2xXTsnJcO3pTElS60i/nlXlDeH6h2MLGuw8wIDAQABAoIBABAQ+sUz0zupBkp9
        T5sClBglw4P9pZRwj3yC2aafitmnqkuBDSKkHRbtGwzcR2tplWi4ESQDCMLq4iwc
        A/gl2CwtmVlaQh1Ay+34ID8gy65EjTHkHnZyE3bfBwh1x1pH02kIANzuumeKargc
        TMasHvd/toiFPY0Q1wl1xUkKsoxsY57yH0qhkpqyslNh06+sV9I7RueE6QLVafjz
        OAgM4VA1CzS/qm9a8x2Nb1EMC5f58p+77xfmNbrBp6muWxFmeJcFyQJirbJCmx0i
        F+isRt+pm7GGqauSNQV/+FVrXeVINHMAqZNz2x6t7B0hfUU/KJ3QNgLoUClPlh4v
        nBndyo0CgYEA7Qihud/7jx1E6VRHP9vEeoofizfFc7nmZcFt9k0wpG3YV+SSAXkG
        S0jFGOXPgBgbz3lo6UnUwLa/sr3eHvWdMRvxIqEb798QhZMh2jvIYtEVSndjjPQQ
        8mN7Xw51IPHVgGRY/qc+YE62bfOK7v9gJHSaYHYVxwKxjKIAZlfN1B8CgYEAy1Rv
        8FtFnUMR5/Gn0IlDkFsX1lPjF4JbrmAwDcM2n3FJ6ifFbOd5393E7CqkCdT6+sRZ
        JHFDNg1nlk2k4fLoXctyfg26w0KdEvH+2t/u6wz/H5N0Pu9E6VVeUq1qVZQ4txjU
        O5YtY7E5SqUH22tGsv89PsFBJeOdAD5DJDEBqK0CgYAxoS8LliQ70OsO18CbVE6N
        QcJdCe5jzra484ksmvjmVMGJlagkesygkroB/ow1y9Z22Hro7baIKzt0F2Ecplyl
        Xa5di9InpVL2RNo/sWjBl/mXP+wuJSQvPDkmrAZGQZxsZ5Ziq23aCGEWIHoklH/y
        4h84t0DUDHJUec8Pnq7QDQKBgCS/1R+HD5T121WlmqQZOwnrPOqy7LeCCxoALo8+
        OjAlJKvallcxmxh4F7BroIxaXyZVuJrakcBCOfezftqLsa3KKJ5Z0uiZsJQNAvgC
        Q0deaPoHB5qcWkMl989PoolnKb0GEs3WPcvn6yfvnfTtdbDCawpdmW3Ersqtdisj
        ZF5dAoGAc61uUVPEzuUDh+fy4S3WzYuUUGzB5gUMwcXpy+aadYtw8usvA7sf8CWp
        Laaw3tsHX1a7DJP3u8LbDXQ1UVza2GlNZAghQPsYfCFYyegk3b6MPBXJ5gHzYBjr
        JIcAk39Mgyubuyz50737WOSxSFykCchKbSImJpu5GAfyJtbpThE=
        -----END RSA PRIVATE KEY-----
        """

    /// RSA-2048 key D, PEM.
    package static let rsaDPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAsEpSdEWwKb4SYa3ixNxs7+S2sGDKdapG55XUegU/Eic1ggHk
        J82Ohv1v/EjWoLQ59k18/iciAYj3BK6uGIju9a9MHaUJNm/ruy5ks0IFXzCsQ5kp
        fIvzGvGnJ+3Kh8lUqqO8GT0h5ewjTJKUZuG9a6rqjF3Kub+NB2btfnmJwtO3QZ4A
        WfthelKCmnT+2E6rCKEzQwyg5eu+2yuJ9ZmmMPnnv1xAlArcsi5LCNa0IWEL69pb
        bxEqccBWAEuzk0EKIwXLWqtZAlWWAH+ME5lHa/8QdWuZevvnz6W1XMLnygBp1jYs
        +01R1IBjIbIloDYEo+dQx9CAXdI37rKmlCAcaQIDAQABAoIBACtm8OvtaFSulgn0
        bJs5BZz+OzgrbE0R0gkcK0arWf7XJmZOnuRpyEhVxydeq3C/TnHkW/yal9W26dH+
        S6CAvgxAz0WRJzZ+0ZOw9VvoyjfIXPD7mWovbnfYvOWotq89kxm73Ah+s4TO4VXt
        1JmLxD3ow3wxb0LR9R+4aIo11APiAWXLtJFtz0KO7f1lkgcdZEHq3zsyfNjJ1Uei
        KRk3nvYOzhcmlU4ANfX9UWjOHIjKNyqOPqM4/XemgbauCOG46JRj5yegkUMuDEKe
        sZl9hgxWs1h9u9UQ6k2ceONPVuJWUiX/B2iZoq/3ydQyQ1II7qVIOpG0tr0xNqUF
        pyR5ojECgYEA1aSzbZw6uR+VX0+Q0P8i5sRrdAT7SZtrSNF5TYo123zHjtnwy3Qa
        u4AwTtpzuZ7LM8ZTjq+QszyBGMMj8MW270KoWeKsaqjci7XvtHx5i628GzsAAjjX
        Wg9mux8/CgS7Ya8vAYDyFVhJbpt5bSqLH3TFLoRNlIM8MGH4yNwDFhUCgYEA0z3M
        Fq6L/K1Vusb0oCMVqMP6U3Z13jpjC1CcYHIKy72DiCl9meSnanIum8LCJ3HNjQ5K
        wmFLbhtGSzrXxVhnNehWiGcaUVegnoSVxckdvdb4FzXdjVhgD8waAGJKB/rIaVv0
        YL8Wd8iB4NWtfK/sidrzG+cF894kDMAEOmAXdgUCgYEAljCK0uuZfLrvT2mn7MTv
        zDsZLx6xaTWRXkekdxZKdlpqD8q2tNCSWm3riAOah0tSnrs10oEpwFcwii/k/EaC
        LAE4SLhJbVH4eV8VfFRlPgSM0LfRcb5z5iQdnD6DGo/pCusUqIH1rXu7Y754xn26
        AAse82ye/WCk136IXuwMX2ECgYAr5ofnntbQ6GUMsBRew2vY6wG3HsNYL+Itk88r
        7Ad6WCRhw92qge6ZHKm7DTq0X95MFlBLHVVDyL9PGyeEh97LQUHajzLU/NUQnJVT
        yXw429grWrJ0kY1FOzGcKtEf32qPGuEqygutUSpMw5uOcjFCZRJpFhYSnHP5gl5e
        k2HM0QKBgGJDnXVVZqRWDPxZj00NfyJxJFxkEOiYOLO1e0sNuf4EE9e+QmnzZGRM
        QnMttgv23w3HCDrSpzE7Hm4E9QT56oBtm25r7A775jhVZfoD1lC3qRAyXnP2PIbd
        hEXLwyvSZ/wLKFUFZmNDW5nQ9sODzLrBI+JKtMsjqHhCeFrcg0PH
        -----END RSA PRIVATE KEY-----
        """

    /// P-256 key A, PEM.
    package static let p256APEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIILh3YKR0wAGDws3AEER5U4NZM6vxBYy0M7bhXzGqSyuoAoGCCqGSM49
        AwEHoUQDQgAEl3O8ma8dDcNz2KrHB/GZbnT9fMi04wRbLe0m+lWDf8VLdatka/Y0
        Bsb6u0hfbH79KiwKkDOZQk7vrIQV4mM0wQ==
        -----END EC PRIVATE KEY-----
        """

    /// P-256 key B, PEM.
    package static let p256BPEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIC+WxvQAPZcLcIr/Ghp6t0Daks94Kx7ITmlEpAHNpGZhoAoGCCqGSM49
        AwEHoUQDQgAEFvFuwDuckw3R/MB1cUX3PWLGcdWa4Fbs9CZ03YULfF0IU+7A6xOF
        Rnyg91cudXgSAPGfQY6AxlAIHt2EbYIjlQ==
        -----END EC PRIVATE KEY-----
        """
}
