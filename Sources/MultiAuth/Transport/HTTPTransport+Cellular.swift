import Foundation

extension HTTPTransport {
    /// This transport as a ``CellularHTTPTransport`` when it is one and a cellular path is
    /// available now; `nil` otherwise (no SNA).
    public var availableCellularTransport: (any CellularHTTPTransport)? {
        guard let cellular = self as? any CellularHTTPTransport, cellular.isCellularAvailable else { return nil }
        return cellular
    }
}
