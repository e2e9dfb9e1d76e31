/// Who a token belongs to: `GET /v1/containers/{container}/account`.
///
/// Devices use it to keep one store per account (a new token of the same user is the same
/// account).
///
/// For example:
/// ```swift
/// let account = try JSONDecoder().decode(AccountResponse.self, from: body)
/// print(account.userName)
/// ```
public struct AccountResponse: Codable, Hashable, Sendable {
    /// The user the token belongs to.
    public var userName: String
    /// The device the token was made for.
    public var deviceID: String

    /// Creates an answer.
    public init(userName: String, deviceID: String) {
        self.userName = userName
        self.deviceID = deviceID
    }
}
