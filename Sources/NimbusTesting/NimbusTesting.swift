import Nimbus

/// Helpers for tests: temporary stores and SQL recording.
public enum NimbusTesting {}
