import Foundation
import MultiAuth
import MultiAuthSandbox

/// Sends each request to the inspector page, the control API or an emulated backend
/// (Docs/Emulator.md, "Routes").
struct Router: Sendable {
    let server: SandboxServer

    /// Headers that describe one connection, not the message (RFC 9110 §7.6.1), and framing
    /// the server already applied: never handed to a backend.
    static let connectionFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
        "content-length", "expect",
    ]

    func handle(_ request: ServerRequest) async -> ServerResponse {
        let path = request.path
        let world = server.world
        if let host = backendHost(of: request, world: world) {
            return await serveBackend(request, host: host, path: path, world: world)
        }
        if path == "/_multiauth" || path.hasPrefix("/_multiauth/") {
            return await ControlAPI(server: server, world: world).handle(request)
        }
        if path == "/" || path == "/index.html" {
            guard request.method == "GET" || request.method == "HEAD" else {
                return .error(405, "the inspector page answers GET", headers: [("Allow", "GET, HEAD")])
            }
            return ServerResponse(
                status: 200,
                headers: [
                    ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                    (
                        "Content-Security-Policy",
                        "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'"
                    ),
                ],
                body: Data(InspectorPage.html.utf8))
        }
        if let first = firstSegment(path), let match = world.hosts.first(where: { $0 == first.lowercased() }) {
            let rest = String(path.dropFirst(first.count + 1))
            return await serveBackend(request, host: match, path: rest.isEmpty ? "/" : rest, world: world)
        }
        return .error(
            404,
            "no route for \(path): emulated backends are under /<host>/… (\(world.hosts.joined(separator: ", "))), the control API under /_multiauth/, the inspector at /"
        )
    }

    /// The backend host a request names in its `Host` field (or absolute-form target), when
    /// one is registered there.
    private func backendHost(of request: ServerRequest, world: EmulatorWorld) -> String? {
        guard let field = request.absoluteHost ?? request.header("Host") else { return nil }
        var name = field.lowercased()
        if name.hasPrefix("[") {
            return nil
        } else if let colon = name.lastIndex(of: ":") {
            name = String(name[..<colon])
        }
        return world.hosts.contains(name) ? name : nil
    }

    private func firstSegment(_ path: String) -> String? {
        let trimmed = path.dropFirst()
        guard let segment = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first,
            !segment.isEmpty
        else { return nil }
        return String(segment)
    }

    /// Serves `request` with the backend of `host`: the request rebuilt as it would have been
    /// sent in-process (`https://<host><path>?<query>`, the message's own header fields, the
    /// body bytes), through the world's sandbox pipeline.
    private func serveBackend(_ request: ServerRequest, host: String, path: String, world: EmulatorWorld) async
        -> ServerResponse
    {
        let method = HTTPMethod(rawValue: request.method)
        guard let url = URL(string: "https://\(host)\(path)\(request.query.map { "?" + $0 } ?? "")")
        else { return .error(400, "the request target is not a URL path") }
        var headers: [String: String] = [:]
        for (name, value) in request.headers where !Self.connectionFields.contains(name.lowercased()) {
            if let existing = headers.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                headers[existing] = headers[existing]! + ", " + value
            } else {
                headers[name] = value
            }
        }
        let forwarded = HTTPRequest(
            method: method, url: url, headers: headers, body: request.body.isEmpty ? nil : request.body)
        defer { server.inboxWaiters.poke() }
        do {
            return ServerResponse(try await world.sandbox.serve(forwarded))
        } catch is CancellationError {
            return .drop
        } catch let error as AuthError where error.code == .network {
            // A dropped-connection fault: close the connection without an answer, as the
            // in-process transport throws.
            return .drop
        } catch {
            return .error(502, "the emulated backend failed: \(error)")
        }
    }
}
