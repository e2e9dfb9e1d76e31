import ArgumentParser
import Foundation
import Nimbus
import NimbusCloud
import NimbusWire

/// `nimbus device share|shares|accept|participants|unshare|leave`: sharing objects with other
/// users of the server (decision 0070).
extension DeviceCommand {
    /// `nimbus device share <dir> <Entity> --predicate P [--with USER[:permission]]… [--public P] [--json]`.
    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share objects (and everything they reach) with other users; print the share's id and URL.",
            discussion: """
                The matching objects of the private store move into a zone of their own. Participants are invited \
                (--with grace:read-write, --with alan:read-only; read-write when no permission is given) and reach \
                the objects once they accept the URL (nimbus device accept). --public lets anyone with the URL accept.
                """)

        @Argument(help: "The device folder.") var directory: String
        @Argument(help: "The entity of the objects to share.") var entity: String
        @Option(help: "Which objects, in Core Data's predicate format.") var predicate: String
        @Option(name: .customLong("arg"), help: "A value for the predicate's next %@ (as nimbus store fetch takes it).") var arguments: [String] = []
        @Option(name: .customLong("with"), help: "A participant: USER, USER:read-only or USER:read-write (repeatable).") var participants: [String] = []
        @Option(name: .customLong("public"), help: "What anyone with the URL may do: none, read-only or read-write.") var publicPermission: String = "none"
        @Flag(help: "Print the share as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let publicPermission = try SharingText.permission(self.publicPermission, allowsNone: true)
                let invited = try participants.map(SharingText.participant)
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device share")
                let cloud = try device.openContainer()
                let store = try SharingText.store(.private, of: cloud)
                let session = try StoreSession(container: cloud, model: device.model)
                let objects = try session.context.performAndWait { () throws -> [ManagedObjectID] in
                    var request = FetchRequest<ManagedObject>(entityName: entity)
                    request.predicate = try session.predicate(predicate, arguments: arguments)
                    request.affectedStores = [store]
                    return try session.context.fetch(request).map(\.objectID)
                }
                guard !objects.isEmpty else { throw CLIError("no \(entity) of the private store matches \(predicate)") }
                var (_, share) = try await cloud.share(objectIDs: objects)
                share.participants = invited
                share.publicPermission = publicPermission
                share = try await cloud.persistUpdatedShare(share, in: store)
                let owner = try device.accounts.currentAccount?.identifier
                if json { print(try ObjectJSON.serialize(SharingText.json(share, owner: owner, objects: objects.count))) } else {
                    print("shared \(objects.count) \(entity) object(s) and what they reach: share \(share.shareID)")
                    print("url \(share.url?.absoluteString ?? "")")
                }
            }
        }
    }

    /// `nimbus device shares <dir> [--json]`.
    struct Shares: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Shares this user owns and shares they take part in, with participants.")

        @Argument(help: "The device folder.") var directory: String
        @Flag(help: "Print the shares as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device shares")
                let cloud = try device.openContainer()
                let me = try device.accounts.currentAccount?.identifier
                let owned = try await cloud.fetchShares(in: try SharingText.store(.private, of: cloud))
                let taken = try await cloud.fetchShares(in: try SharingText.store(.shared, of: cloud))
                let all = (owned + taken).map { SharingText.json($0, owner: $0.isOwner ? me : $0.zoneID.ownerName, me: me) }
                if json { print(try ObjectJSON.serialize(all)); return }
                if all.isEmpty { print("no shares") }
                for share in owned + taken {
                    let role = share.isOwner ? "owner" : "participant of \(share.zoneID.ownerName ?? "?")"
                    print("\(share.shareID) (\(role), public \(SharingText.text(share.publicPermission)))" + (share.url.map { " \($0.absoluteString)" } ?? ""))
                    for participant in share.participants {
                        print("  \(participant.userName) \(SharingText.text(participant.permission)) \(participant.state?.rawValue ?? "")"
                            + (participant.isPublic == true ? " (public)" : ""))
                    }
                }
            }
        }
    }

    /// `nimbus device accept <dir> <share-url>`.
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept a share: its objects join this device's shared store.")

        @Argument(help: "The device folder.") var directory: String
        @Argument(help: "The share's URL (nimbus device share prints it).") var url: String
        @Flag(help: "Print what was accepted as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                guard let shareURL = URL(string: url), shareURL.scheme == "http" || shareURL.scheme == "https" else {
                    throw CLIError("\(url) is not a share URL")
                }
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device accept")
                let cloud = try device.openContainer()
                let accepted = try await cloud.acceptShareInvitations(from: [shareURL], into: try SharingText.store(.shared, of: cloud))
                for metadata in accepted {
                    if json {
                        print(try ObjectJSON.serialize(["id": metadata.shareID, "owner": metadata.zoneID.ownerName ?? "",
                                                        "permission": SharingText.text(metadata.permission), "state": "accepted"]))
                    } else {
                        print("accepted share \(metadata.shareID) of \(metadata.zoneID.ownerName ?? "?") (\(SharingText.text(metadata.permission)))")
                    }
                }
            }
        }
    }

    /// `nimbus device participants <dir> <share-id> (--add USER[:permission] | --remove USER)…`.
    struct Participants: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add or remove participants of a share this user owns, or change their permission.")

        @Argument(help: "The device folder.") var directory: String
        @Argument(help: "The share's id.") var shareID: String
        @Option(help: "Invite USER, or change their permission: USER, USER:read-only, USER:read-write (repeatable).") var add: [String] = []
        @Option(help: "Remove USER from the share (repeatable).") var remove: [String] = []
        @Flag(help: "Print the share as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                guard !add.isEmpty || !remove.isEmpty else { throw CLIError("give --add USER[:permission] or --remove USER") }
                let additions = try add.map(SharingText.participant)
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device participants")
                let cloud = try device.openContainer()
                let store = try SharingText.store(.private, of: cloud)
                guard var share = try await cloud.fetchShares(in: store).first(where: { $0.shareID == shareID }) else {
                    throw CLIError("this user owns no share \(shareID) (nimbus device shares lists them)")
                }
                for name in remove {
                    guard share.participants.contains(where: { $0.userName == name }) else { throw CLIError("\(name) is not a participant of \(shareID)") }
                    share.participants.removeAll { $0.userName == name }
                }
                for participant in additions {
                    if let index = share.participants.firstIndex(where: { $0.userName == participant.userName }) {
                        share.participants[index].permission = participant.permission
                        if share.participants[index].state == .removed { share.participants[index].state = nil }
                        share.participants[index].isPublic = nil
                    } else {
                        share.participants.append(participant)
                    }
                }
                share = try await cloud.persistUpdatedShare(share, in: store)
                let me = try device.accounts.currentAccount?.identifier
                if json { print(try ObjectJSON.serialize(SharingText.json(share, owner: me))) } else {
                    print("share \(share.shareID): " + share.participants.map { "\($0.userName) \(SharingText.text($0.permission)) \($0.state?.rawValue ?? "")" }
                        .joined(separator: ", "))
                }
            }
        }
    }

    /// `nimbus device unshare <dir> <share-id>`.
    struct Unshare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop sharing (owner): every participant loses the objects; this device keeps them.")

        @Argument(help: "The device folder.") var directory: String
        @Argument(help: "The share's id.") var shareID: String

        func run() async throws {
            try await reportingErrors {
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device unshare")
                let cloud = try device.openContainer()
                let store = try SharingText.store(.private, of: cloud)
                guard let share = try await cloud.fetchShares(in: store).first(where: { $0.shareID == shareID }) else {
                    throw CLIError("this user owns no share \(shareID) (nimbus device shares lists them; a participant leaves with nimbus device leave)")
                }
                try await cloud.stopSharing(share, in: store)
                print("share \(shareID) ended")
            }
        }
    }

    /// `nimbus device leave <dir> <share-id>`.
    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave a share of another user (participant): its objects leave this device.")

        @Argument(help: "The device folder.") var directory: String
        @Argument(help: "The share's id.") var shareID: String

        func run() async throws {
            try await reportingErrors {
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device leave")
                let cloud = try device.openContainer()
                let store = try SharingText.store(.shared, of: cloud)
                guard let share = try await cloud.fetchShares(in: store).first(where: { $0.shareID == shareID }) else {
                    throw CLIError("this user takes part in no share \(shareID) (nimbus device shares lists them; an owner ends one with nimbus device unshare)")
                }
                try await cloud.leave(share, in: store)
                print("left share \(shareID)")
            }
        }
    }
}

/// How the sharing commands read and print permissions, participants and shares.
enum SharingText {
    static func permission(_ text: String, allowsNone: Bool = false) throws -> SharePermission {
        switch text.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "read-only", "readonly", "ro", "read": return .readOnly
        case "read-write", "readwrite", "rw", "write": return .readWrite
        case "none" where allowsNone: return SharePermission.none
        default: throw CLIError("\(text) is not a permission: use read-only or read-write" + (allowsNone ? " (or none)" : ""))
        }
    }

    static func text(_ permission: SharePermission) -> String {
        switch permission {
        case .none: "none"
        case .readOnly: "read-only"
        case .readWrite: "read-write"
        }
    }

    /// `USER`, `USER:read-only` or `USER:read-write`.
    static func participant(_ text: String) throws -> ShareParticipant {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let name = parts.first, !name.isEmpty else { throw CLIError("\(text) names no user") }
        return ShareParticipant(userName: name, permission: try parts.count == 2 ? permission(parts[1]) : .readWrite)
    }

    static func store(_ scope: DatabaseScope, of cloud: CloudContainer) throws -> PersistentStore {
        guard let store = cloud.mirroredStore(for: scope) else {
            throw CLIError("this device has no \(scope.rawValue) store (the device folder mirrors another database)")
        }
        return store
    }

    static func json(_ share: CloudShare, owner: String?, me: String? = nil, objects: Int? = nil) -> [String: Any] {
        var result: [String: Any] = [
            "id": share.shareID, "zone": share.zoneID.zoneName, "owner": owner ?? NSNull(),
            "role": share.isOwner ? "owner" : "participant", "publicPermission": text(share.publicPermission),
            "url": share.url?.absoluteString ?? NSNull(),
            "participants": share.participants.map { participant -> [String: Any] in
                ["user": participant.userName, "permission": text(participant.permission),
                 "state": participant.state?.rawValue ?? NSNull(), "public": participant.isPublic ?? false]
            },
        ]
        if let me, !share.isOwner, let mine = share.participants.first(where: { $0.userName == me }) {
            result["permission"] = text(mine.permission)
            result["state"] = mine.state?.rawValue ?? NSNull()
        }
        if let objects { result["objects"] = objects }
        return result
    }
}
