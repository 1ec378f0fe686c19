/// Reassembles bytes from the 5-bit groups of base32 or the 6-bit groups of base64, most
/// significant bit first (RFC 4648 §6, §4): the step both decoders share.
struct BitRegrouper {
    /// The bits read but not yet emitted as a byte (fewer than 8); after the last group, the
    /// unused trailing bits.
    private(set) var pending: UInt32 = 0
    private var pendingCount = 0

    /// Appends the low `width` bits of `group` and adds a byte to `out` once 8 bits are ready.
    @inline(__always)
    mutating func append(_ group: UInt32, width: Int, to out: inout [UInt8]) {
        pending = pending << UInt32(width) | group
        pendingCount += width
        if pendingCount >= 8 {
            pendingCount -= 8
            out.append(UInt8(truncatingIfNeeded: pending >> UInt32(pendingCount)))
            pending &= (1 << UInt32(pendingCount)) - 1
        }
    }
}
