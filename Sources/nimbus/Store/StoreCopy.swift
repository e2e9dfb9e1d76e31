import ArgumentParser
import Foundation
import NimbusCloud

extension StoreCommand {
    /// `nimbus store copy <from> <to> [--strip-cloud-metadata]`.
    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a store safely (SQLite's backup, WAL included), optionally without its cloud metadata.",
            discussion: "Example: nimbus store copy phone/Cloud.sqlite backup.sqlite --strip-cloud-metadata")

        @Argument(help: "The store file to copy.") var from: String
        @Argument(help: "The new file.") var to: String
        @Flag(help: "Leave out the sync metadata: a clean local copy for a backup or an export.") var stripCloudMetadata = false

        func run() throws {
            try reportingErrors {
                try CloudContainer.copyStore(at: URL(fileURLWithPath: from), to: URL(fileURLWithPath: to),
                                             strippingCloudMetadata: stripCloudMetadata)
                print("copied \(from) to \(to)" + (stripCloudMetadata ? " without cloud metadata" : ""))
            }
        }
    }
}
