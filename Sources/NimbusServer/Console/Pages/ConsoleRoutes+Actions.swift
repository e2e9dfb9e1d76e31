import Foundation
import Hummingbird
import NimbusWire

/// Administrator actions. Each is a POST: without `confirm=yes` it answers a page that says
/// what will happen and holds the form that does it; with it, the action runs, is written to
/// the audit log, and the browser is sent back to the page it came from.
extension ConsoleRoutes {
    /// `POST /console/tokens/{id}/revoke`.
    func revokeToken(_ visit: Visit) async throws -> Response {
        guard let id = visit.context.parameters.get("token", as: Int64.self), let found = try await visit.storage.consoleToken(id: id),
            let owner = try await visit.storage.consoleUser(id: found.userID)
        else { throw WireError(.unknownItem, "No such token.") }
        let token = found.token
        let back = "/console/users/\(owner.id)"
        guard visit.form["confirm"] == "yes" else {
            return confirmation(
                visit, title: "Revoke a token",
                question: "Revoke token #\(token.id) of \(owner.name)'s device “\(token.device)”? The device is signed out at its next request and its push socket closes.",
                action: "/console/tokens/\(token.id)/revoke", button: "Revoke token", cancel: back)
        }
        let revoked = try await visit.storage.revokeToken(id: token.id)
        try await audit(visit, action: "revoke token", target: "\(owner.name)/\(token.device) #\(token.id)", detail: revoked ? "" : "already revoked")
        return Self.seeOther(back)
    }

    /// `POST /console/users/{id}/quota` with `quota` (bytes; empty for the server's default).
    func changeQuota(_ visit: Visit) async throws -> Response {
        let user = try await requireUser(visit)
        let text = (visit.form["quota"] ?? "").trimmingCharacters(in: .whitespaces)
        let quota: Int64?
        if text.isEmpty {
            quota = nil
        } else if let bytes = Int64(text), (0...ServerConfiguration.largestQuotaBytes).contains(bytes) {
            quota = bytes
        } else {
            throw WireError(.invalidArguments, "The quota “\(text)” is not a number of bytes between 0 and \(ServerConfiguration.largestQuotaBytes); nothing changed.")
        }
        let back = "/console/users/\(user.id)"
        let described = quota.map { "\($0) bytes (\(ConsoleFormat.bytes($0)))" } ?? "the server's default"
        guard visit.form["confirm"] == "yes" else {
            return confirmation(
                visit, title: "Change a quota",
                question: "Set \(user.name)'s quota to \(described)? They use \(ConsoleFormat.bytes(user.usedBytes)) now; writes past the quota are refused.",
                action: "/console/users/\(user.id)/quota", button: "Change quota", cancel: back, fields: ["quota": text])
        }
        try await visit.storage.setQuota(userID: user.id, quotaBytes: quota)
        try await audit(visit, action: "change quota", target: user.name, detail: "from \(user.quotaBytes.map(String.init) ?? "default") to \(quota.map(String.init) ?? "default")")
        return Self.seeOther(back)
    }

    /// `POST /console/users/{id}/disable` and `…/enable`.
    func setDisabled(_ visit: Visit, _ disabled: Bool) async throws -> Response {
        let user = try await requireUser(visit)
        let back = "/console/users/\(user.id)"
        if disabled && user.id == visit.session.userID {
            throw WireError(.invalidArguments, "You cannot disable the account you are signed in with.")
        }
        guard visit.form["confirm"] == "yes" else {
            return confirmation(
                visit, title: disabled ? "Disable a user" : "Enable a user",
                question: disabled
                    ? "Disable \(user.name)? Every token of theirs is revoked now, and no new token can be made until they are enabled again. Their data is kept."
                    : "Enable \(user.name)? New tokens can be made for them (revoked tokens stay revoked).",
                action: "/console/users/\(user.id)/\(disabled ? "disable" : "enable")", button: disabled ? "Disable user" : "Enable user", cancel: back)
        }
        try await visit.storage.setDisabled(userID: user.id, disabled)
        if disabled { console.sessions.closeAll(userID: user.id) }
        try await audit(visit, action: disabled ? "disable user" : "enable user", target: user.name, detail: "")
        return Self.seeOther(back)
    }

    /// `GET` (confirmation) and `POST /console/zones/{id}/delete`.
    func deleteZone(_ visit: Visit) async throws -> Response {
        let zone = try await requireZone(visit)
        let back = zone.ownerID == DatabaseKey.publicOwner ? "/console/zones" : "/console/users/\(zone.ownerID)"
        guard visit.request.method == .post, visit.form["confirm"] == "yes" else {
            return confirmation(
                visit, title: "Delete a zone",
                question: "Delete zone “\(zone.name)” of container “\(zone.container)” and its \(zone.records) records? Devices delete their copies at their next sync. This cannot be undone.",
                action: "/console/zones/\(zone.rowID)/delete", button: "Delete zone", cancel: back)
        }
        _ = try await console.services.storage.deleteZone(zone.key, now: console.services.clock.now())
        try await audit(visit, action: "delete zone", target: "\(zone.container)/\(zone.name) (owner \(zone.ownerID))", detail: "\(zone.records) records")
        return Self.seeOther(back)
    }

    /// The confirmation page of an action.
    func confirmation(
        _ visit: Visit, title: String, question: String, action: String, button: String, cancel: String, fields: [String: String] = [:]
    ) -> Response {
        render(
            "confirm", title: title,
            values: [
                "question": question, "action": action, "button": button, "cancel": cancel,
                "fields": fields.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
            ],
            visit: visit)
    }

    /// Writes an action to the audit log.
    func audit(_ visit: Visit, action: String, target: String, detail: String) async throws {
        try await visit.storage.appendAudit(AuditEntry(
            at: console.services.clock.now(), administrator: visit.session.userName, action: action, target: target, detail: detail))
    }

    /// The zone named by the `:zone` parameter (a row id).
    /// - Throws: `zoneNotFound`.
    func requireZone(_ visit: Visit) async throws -> ConsoleZone {
        guard let id = visit.context.parameters.get("zone", as: Int64.self), let zone = try await visit.storage.consoleZone(rowID: id) else {
            throw WireError(.zoneNotFound, "No such zone (it may have been deleted).")
        }
        return zone
    }
}
