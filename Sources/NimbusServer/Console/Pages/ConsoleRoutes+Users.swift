import Foundation
import Hummingbird
import NimbusWire

extension ConsoleRoutes {
    /// `GET /console/users`.
    func users(_ visit: Visit) async throws -> Response {
        let users = try await visit.storage.consoleUsers()
        let defaultQuota = console.services.configuration.defaultQuotaBytes
        let rows = users.map { user -> [String: Any] in
            [
                "id": user.id, "name": user.name, "role": user.isAdministrator ? "administrator" : "user",
                "state": user.isDisabled ? "disabled" : "active", "used": ConsoleFormat.bytes(user.usedBytes),
                "quota": ConsoleFormat.bytes(user.quotaBytes ?? defaultQuota) + (user.quotaBytes == nil ? " (default)" : ""),
            ]
        }
        return render("users", title: "Users", values: ["users": rows, "count": users.count], visit: visit, section: "/console/users")
    }

    /// `GET /console/users/{id}`: devices and tokens, zones, actions.
    func user(_ visit: Visit) async throws -> Response {
        let account = try await requireUser(visit)
        let tokens = try await visit.storage.consoleTokens(userID: account.id)
        let now = console.services.clock.now()
        let quota = account.quotaBytes ?? console.services.configuration.defaultQuotaBytes
        let tokenRows = tokens.map { token -> [String: Any] in
            let activity = console.telemetry.activity(user: account.name, device: token.device)
            let expired = token.expiresAt.map { $0 <= now } ?? false
            return [
                "id": token.id, "device": token.device, "created": ConsoleFormat.time(token.createdAt),
                "expires": token.expiresAt.map { ConsoleFormat.time($0) } ?? "never",
                "lastSeen": ConsoleFormat.time(activity?.lastSeen), "requests": activity?.requests ?? 0, "errors": activity?.errors ?? 0,
                "state": token.revoked ? "revoked" : expired ? "expired" : "live", "live": !token.revoked && !expired,
            ]
        }
        let zones = try await visit.storage.consoleZones(ownerID: account.id)
        var values: [String: Any] = [
            "id": account.id, "role": account.isAdministrator ? "administrator" : "user",
            "state": account.isDisabled ? "disabled" : "active",
            "used": ConsoleFormat.bytes(account.usedBytes), "quota": ConsoleFormat.bytes(quota),
            "percent": quota > 0 ? min(100, Int(Double(account.usedBytes) / Double(quota) * 100)) : 100,
            "tokens": tokenRows, "zones": zonesTable(zones),
            "toggle": account.isDisabled ? "enable" : "disable",
            "toggleLabel": account.isDisabled ? "Enable user…" : "Disable user…",
            "csrf": visit.session.csrf,
        ]
        if let bytes = account.quotaBytes { values["quotaBytes"] = bytes }
        return render("user", title: "User \(account.name)", values: values, visit: visit, section: "/console/users")
    }

    /// `GET /console/zones`: the public database's zones.
    func publicZones(_ visit: Visit) async throws -> Response {
        let zones = try await visit.storage.consoleZones(ownerID: DatabaseKey.publicOwner)
        return Self.htmlResponse(
            console.renderer.pageAround(zonesTable(zones), title: "Public zones", session: visit.session, section: "/console/zones"))
    }

    /// The zones table, rendered.
    func zonesTable(_ zones: [ConsoleZone]) -> String {
        console.renderer.fragment("zones", values: [
            "zones": zones.map { zone -> [String: Any] in
                [
                    "rowID": zone.rowID, "container": zone.container, "name": zone.name, "records": zone.records,
                    "bytes": ConsoleFormat.bytes(zone.bytes), "seq": zone.seq, "shared": zone.shared ? "yes" : "no",
                ]
            },
        ])
    }

    /// The user named by the `:user` parameter (an id).
    /// - Throws: `unknownItem`.
    func requireUser(_ visit: Visit) async throws -> ConsoleUser {
        guard let id = visit.context.parameters.get("user", as: Int64.self), let user = try await visit.storage.consoleUser(id: id) else {
            throw WireError(.unknownItem, "No such user.")
        }
        return user
    }
}
