/// The bounds a ``SandboxServer`` puts on every connection: sizes checked before any work,
/// wall-clock timeouts measured by the server's I/O thread (never by the emulated backends,
/// which run on the sandbox's clock), and a cap on open connections.
///
/// A request over a size limit is answered with its status (`414` request line, `431` header
/// section, `413` body) and the connection is closed; a client that does not finish its header
/// section in ``headerTimeout`` or its body in ``requestTimeout`` gets `408` and is closed; an
/// idle keep-alive connection is closed after ``idleTimeout``; a response the client does not
/// read within ``writeTimeout`` is abandoned. Docs/Emulator.md, "Limits".
public struct ServerLimits: Sendable, Hashable {
    /// The longest request line (method, target, version), bytes. Default 8 KiB.
    public var maximumRequestLineBytes: Int
    /// The longest header section (request line included), bytes. Default 64 KiB.
    public var maximumHeaderBytes: Int
    /// The most header fields in one request. Default 100.
    public var maximumHeaderCount: Int
    /// The longest request body (after chunked decoding), bytes. Default 1 MiB.
    public var maximumBodyBytes: Int
    /// The time from a request's first byte to the end of its header section. Default 10 s.
    public var headerTimeout: Duration
    /// The time from a request's first byte to the end of its body. Default 30 s.
    public var requestTimeout: Duration
    /// How long a keep-alive connection may wait for its next request. Default 60 s.
    public var idleTimeout: Duration
    /// How long a response may take to be written once the client stops reading. Default 30 s.
    public var writeTimeout: Duration
    /// The most open connections; one more is answered `503` and closed. Default 4096 (the
    /// server raises its process's open-file limit to fit, where the hard limit allows).
    public var maximumConnections: Int
    /// The longest long-poll a client may ask for (`timeout` of the inbox's `next`). Default 60 s.
    public var maximumLongPoll: Duration

    /// Creates limits; every default is the documented one.
    public init(
        maximumRequestLineBytes: Int = 8 * 1024, maximumHeaderBytes: Int = 64 * 1024, maximumHeaderCount: Int = 100,
        maximumBodyBytes: Int = 1024 * 1024, headerTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60),
        writeTimeout: Duration = .seconds(30), maximumConnections: Int = 4096, maximumLongPoll: Duration = .seconds(60)
    ) {
        self.maximumRequestLineBytes = maximumRequestLineBytes
        self.maximumHeaderBytes = maximumHeaderBytes
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumBodyBytes = maximumBodyBytes
        self.headerTimeout = headerTimeout
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maximumConnections = maximumConnections
        self.maximumLongPoll = maximumLongPoll
    }
}
