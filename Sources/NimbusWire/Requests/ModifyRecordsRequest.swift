/// The body of `POST …/zones/{zone}/records/modify`: records to save and delete in one zone.
///
/// Limits: at most ``maximumItems`` saves and deletions together, a body of at most
/// ``maximumBodyBytes`` (assets upload separately), each record at most
/// ``maximumRecordBytes`` as JSON; beyond them the request fails with
/// ``WireError/Code/limitExceeded``. With ``atomic`` the batch applies whole or not at
/// all; without, each item succeeds or fails alone.
///
/// For example:
/// ```swift
/// let request = ModifyRecordsRequest(saves: [post], deletions: [], savePolicy: .changedKeys, atomic: true)
/// ```
public struct ModifyRecordsRequest: Codable, Hashable, Sendable {
    /// The most saves plus deletions in one request.
    public static let maximumItems = 400
    /// The largest request body, in bytes.
    public static let maximumBodyBytes = 2 * 1024 * 1024
    /// The largest record, in bytes of its JSON encoding.
    public static let maximumRecordBytes = 1024 * 1024

    /// Records to save.
    public var saves: [Record]
    /// Records to delete.
    public var deletions: [RecordDeletion]
    /// How saves treat existing records.
    public var savePolicy: SavePolicy
    /// Whether the batch applies as a whole or not at all.
    public var atomic: Bool

    /// Creates a request.
    /// - Parameters:
    ///   - saves: Records to save.
    ///   - deletions: Records to delete.
    ///   - savePolicy: The save policy; ``SavePolicy/ifServerRecordUnchanged`` by default.
    ///   - atomic: Whether the batch is all or nothing; `false` by default.
    public init(
        saves: [Record] = [],
        deletions: [RecordDeletion] = [],
        savePolicy: SavePolicy = .ifServerRecordUnchanged,
        atomic: Bool = false
    ) {
        self.saves = saves
        self.deletions = deletions
        self.savePolicy = savePolicy
        self.atomic = atomic
    }

    private enum CodingKeys: String, CodingKey {
        case saves, deletions, savePolicy, atomic
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        saves = try container.decodeIfPresent([Record].self, forKey: .saves) ?? []
        deletions = try container.decodeIfPresent([RecordDeletion].self, forKey: .deletions) ?? []
        savePolicy = try container.decodeIfPresent(SavePolicy.self, forKey: .savePolicy) ?? .ifServerRecordUnchanged
        atomic = try container.decodeIfPresent(Bool.self, forKey: .atomic) ?? false
    }
}
