/// The regions whose Truecaller profile calls go to the EU profile host: the one list the
/// Truecaller adapter (`TruecallerConfiguration.defaultEURegions`) and the sandbox's emulated
/// backend (`TruecallerBackend`) both read, so they cannot drift apart.
///
/// The 44 codes TrueSDK sends to `outline-eu` (Docs/Providers/Truecaller.md, "Configuration"):
/// the 27 EU member states, Iceland, Liechtenstein and Norway, and Switzerland, the United
/// Kingdom (as `GB` and as TrueSDK's `UK`), Andorra, the Faroe Islands, Gibraltar, Guernsey,
/// the Isle of Man, Jersey, Monaco, San Marino, Svalbard and Jan Mayen, the Vatican and the
/// Åland Islands. Upper case; `UK` is kept because TrueSDK lists it, though it is not an
/// ISO 3166-1 code.
package enum TruecallerProfileRegions {
    /// The upper-case region codes served by the EU profile host.
    package static let europe: Set<String> = [
        "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU",
        "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "UK", "GB", "IS", "LI", "NO", "CH", "AD", "FO", "GI",
        "GG", "IM", "JE", "MC", "SM", "SJ", "VA", "AX",
    ]
}
