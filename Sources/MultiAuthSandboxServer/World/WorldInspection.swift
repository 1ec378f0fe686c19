import Foundation
import MultiAuthSandbox

/// The pending flows and issued sessions of a world's four backends, for the inspector and
/// `GET /_multiauth/state`.
enum WorldInspection {
    struct Flow {
        let flow: SandboxActivity.Flow
        var json: [String: Any] {
            [
                "provider": flow.provider, "destination": flow.destination, "kind": flow.kind,
                "expiresAt": flow.expiresAt.map(ControlAPI.iso) ?? NSNull(), "wrongAttempts": flow.wrongAttempts,
            ]
        }
    }

    struct Session {
        let session: SandboxActivity.Session
        var json: [String: Any] {
            [
                "provider": session.provider, "userID": session.userID,
                "destination": session.destination ?? NSNull(), "revoked": session.revoked,
            ]
        }
    }

    static func activities(_ world: EmulatorWorld) -> [SandboxActivity] {
        [
            world.dynamicBackend.activity(), world.truecallerBackend.activity(), world.portalBackend.activity(),
            world.otplessBackend.activity(),
        ]
    }

    static func pendingFlows(_ world: EmulatorWorld) -> [Flow] {
        let now = world.sandbox.time.now
        return activities(world).flatMap(\.flows).filter { ($0.expiresAt ?? now) >= now }.sorted {
            ($0.provider, $0.destination) < ($1.provider, $1.destination)
        }.map(Flow.init)
    }

    static func issuedSessions(_ world: EmulatorWorld) -> [Session] {
        activities(world).flatMap(\.sessions).sorted {
            ($0.provider, $0.destination ?? "", $0.userID) < ($1.provider, $1.destination ?? "", $1.userID)
        }.map(Session.init)
    }
}
