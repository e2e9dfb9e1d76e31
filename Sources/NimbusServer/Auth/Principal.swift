/// The authenticated caller of a request: a user and one of their devices.
package struct Principal: Hashable, Sendable {
    package var userID: Int64
    package var userName: String
    /// The device id stamped on the records it saves (the token's device name).
    package var deviceID: String
    package var tokenID: Int64

    package init(userID: Int64, userName: String, deviceID: String, tokenID: Int64) {
        self.userID = userID
        self.userName = userName
        self.deviceID = deviceID
        self.tokenID = tokenID
    }
}
