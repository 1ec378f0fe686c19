import Foundation

/// Numbering-plan metadata for every territory libphonenumber knows, parsed lazily from the
/// generated ``rawTable`` (see `Scripts/generate_phone_metadata.py`).
///
/// Internal: the public surface is ``PhoneNumber``.
enum PhoneMetadata {
    /// The metadata of one territory: a geographic region, or a non-geographic calling code
    /// (region `"001"`, e.g. +800).
    struct Territory: Sendable {
        /// ISO 3166-1 alpha-2 region code, or `"001"` for a non-geographic calling code.
        let region: String
        /// The ITU-T E.164 country calling code.
        let callingCode: Int
        /// Possible lengths of a national significant number, ascending.
        let possibleLengths: [Int]
        /// Lengths only dialable within an area (without its area code), ascending.
        let localOnlyLengths: [Int]
        /// The national (trunk) prefix, e.g. `"0"`; `nil` where the region has none (Italy).
        let nationalPrefix: String?
        /// Regex matching the national prefix (and carrier codes) when parsing national input.
        let nationalPrefixForParsing: String?
        /// Template (`$1`) rewriting the match of ``nationalPrefixForParsing``, when any.
        let nationalPrefixTransformRule: String?
        /// Regex of the international (exit) prefix dialled from this region, e.g. `"011"`.
        let internationalPrefix: String?
        /// Regex identifying this region among the regions sharing its calling code.
        let leadingDigits: String?
        /// The general-description national-number regex.
        let generalPattern: String
        /// The union of all number-type regexes (only for shared calling codes).
        let typesPattern: String?

        /// Whether this is a non-geographic entity (region `"001"`).
        var isNonGeographic: Bool { region == "001" }
    }

    /// Territories indexed by region and by calling code.
    struct Table: Sendable {
        /// Geographic territories by upper-case region code.
        let byRegion: [String: Territory]
        /// Territories by calling code, main region first (libphonenumber's order).
        let byCallingCode: [Int: [Territory]]
    }

    /// The parsed table, built on first use (thread-safe lazy initialisation of a static).
    static let table: Table = parse(rawTable)

    /// The territory of a region code (case-insensitive), or `nil` when unknown.
    static func territory(forRegion region: String) -> Territory? {
        table.byRegion[region.uppercased()]
    }

    /// The territories of a calling code, main region first; empty when unassigned.
    static func territories(forCallingCode code: Int) -> [Territory] {
        table.byCallingCode[code] ?? []
    }

    /// Parses the generated table. A malformed line is a generator bug and traps.
    static func parse(_ raw: String) -> Table {
        var byRegion: [String: Territory] = [:]
        var byCallingCode: [Int: [Territory]] = [:]
        for line in raw.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            precondition(fields.count == 11, "malformed phone metadata line: \(line.prefix(20))")
            func optional(_ index: Int) -> String? { fields[index] == "~" ? nil : fields[index] }
            func lengths(_ index: Int) -> [Int] {
                optional(index)?.split(separator: ",").compactMap { Int($0) } ?? []
            }
            guard let callingCode = Int(fields[1]) else {
                preconditionFailure("malformed calling code in phone metadata: \(fields[0])")
            }
            let nationalPrefix = optional(4)
            let territory = Territory(
                region: fields[0],
                callingCode: callingCode,
                possibleLengths: lengths(2),
                localOnlyLengths: lengths(3),
                nationalPrefix: nationalPrefix,
                nationalPrefixForParsing: optional(5) ?? nationalPrefix,
                nationalPrefixTransformRule: optional(6),
                internationalPrefix: optional(7),
                leadingDigits: optional(8),
                generalPattern: fields[9],
                typesPattern: optional(10)
            )
            if !territory.isNonGeographic { byRegion[territory.region] = territory }
            byCallingCode[callingCode, default: []].append(territory)
        }
        return Table(byRegion: byRegion, byCallingCode: byCallingCode)
    }
}
