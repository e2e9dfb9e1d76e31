/// Nimbus: Core Data's object graph, rebuilt in Swift for every platform Swift runs on.
public enum Nimbus {
    /// The version of the library.
    public static let version = "0.1.0"
}
