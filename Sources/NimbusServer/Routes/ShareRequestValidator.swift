import NimbusWire

/// Checks a ``SaveShareRequest`` and resolves its participants' user names. Every failing
/// participant is listed in one error, and nothing is stored until all are valid.
///
/// A name no user has is not an error (server-0025): it becomes a pending invitation by
/// name, so the answer is the same whether the name exists or not and saving a share cannot
/// tell which user names this server has.
struct ShareRequestValidator {
    let storage: any SyncStorage

    /// The participants as stored members.
    /// - Throws: `invalidArguments` for bad or duplicate names, the owner among the
    ///   participants, or a participant permission of `none`; `limitExceeded` for too many
    ///   participants.
    func members(of request: SaveShareRequest, owner: Principal) async throws -> [ShareMember] {
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
        for participant in request.participants {
            let user = try await storage.user(named: participant.userName)
            members.append(ShareMember(userID: user?.id, userName: participant.userName, permission: participant.permission))
        }
        return members
    }

    private static func summary(_ items: [ItemError]) -> String {
        let listed = items.prefix(5).map { "'\($0.name)': \($0.message)" }.joined(separator: " ")
        return "\(items.count) participant(s) are invalid. \(listed)"
    }
}
