import NimbusWire

/// Checks a ``SaveShareRequest`` and resolves its participants' user names. Every failing
/// participant is listed in one error, and nothing is stored until all are valid.
struct ShareRequestValidator {
    let storage: any SyncStorage

    /// The participants as stored members.
    /// - Throws: `invalidArguments` for a public permission other than `none`, bad or duplicate
    ///   names, the owner among the participants, or a participant permission of `none`;
    ///   `limitExceeded` for too many participants; `unknownItem` for users this server lacks.
    func members(of request: SaveShareRequest, owner: Principal) async throws -> [ShareMember] {
        if request.publicPermission != SharePermission.none {
            throw WireError(.invalidArguments, "publicPermission must be none: this server shares zones only with named participants.")
        }
        if request.participants.count > SaveShareRequest.maximumParticipants {
            throw WireError(
                .limitExceeded,
                "The share names \(request.participants.count) participants; a share holds at most \(SaveShareRequest.maximumParticipants).")
        }
        var problems: [ItemError] = []
        var seen = Set<String>()
        for participant in request.participants {
            let name = participant.userName
            if let problem = NameRules.problem(with: name) {
                problems.append(ItemError(name: name, code: .invalidArguments, message: "The user name \(problem)."))
            } else if name == owner.userName {
                problems.append(ItemError(name: name, code: .invalidArguments, message: "The owner of a zone cannot be a participant of its share."))
            } else if !seen.insert(name).inserted {
                problems.append(ItemError(name: name, code: .invalidArguments, message: "'\(name)' appears more than once."))
            } else if participant.permission == SharePermission.none {
                problems.append(ItemError(name: name, code: .invalidArguments, message: "A participant's permission is readOnly or readWrite."))
            }
        }
        if !problems.isEmpty {
            throw WireError(.invalidArguments, Self.summary(problems), itemErrors: problems)
        }
        var members: [ShareMember] = []
        var unknown: [ItemError] = []
        for participant in request.participants {
            if let user = try await storage.user(named: participant.userName) {
                members.append(ShareMember(userID: user.id, userName: user.name, permission: participant.permission))
            } else {
                unknown.append(ItemError(
                    name: participant.userName, code: .unknownItem, message: "No user named '\(participant.userName)' on this server."))
            }
        }
        if !unknown.isEmpty {
            throw WireError(.unknownItem, Self.summary(unknown), itemErrors: unknown)
        }
        return members
    }

    private static func summary(_ items: [ItemError]) -> String {
        let listed = items.prefix(5).map { "'\($0.name)': \($0.message)" }.joined(separator: " ")
        return "\(items.count) participant(s) are invalid. \(listed)"
    }
}
