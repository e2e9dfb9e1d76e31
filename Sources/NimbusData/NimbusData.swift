// NimbusData: SwiftData's API over Nimbus. App code written for SwiftData compiles on
// Linux by changing `import SwiftData` to `import NimbusData`.
@_exported import Foundation
public import Nimbus
import Observation

/// The registrar `@Model` classes keep for Observation (named here so that the code the
/// macro writes needs no `import Observation`).
public typealias _ObservationRegistrar = Observation.ObservationRegistrar
