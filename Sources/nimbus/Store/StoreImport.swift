import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store import <store> <Entity> --jsonl FILE`.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Insert one object per line of a JSON Lines file, all in one save.",
            discussion: """
                Each line is a JSON object whose keys are the entity's properties, with values as store insert \
                takes them: strings parsed by each attribute's type (JSON numbers and booleans are taken as \
                written), relationships as object URIs, Entity[key=value] or a predicate on the destination \
                entity (a JSON array of such strings for a to-many relationship); null or a missing key leaves \
                the property nil (or its default). Empty lines are skipped. Every line is checked before \
                anything is saved: bad lines are reported by line number and nothing is saved.
                Example: nimbus store import Posts.sqlite Post --jsonl posts.jsonl
                """)

        @Argument(help: "The store file or device folder.") var store: String
        @Argument(help: "The entity name.") var entity: String
        @Option(help: "The JSON Lines file to read.") var jsonl: String
        @Option(help: "The author recorded in persistent history (default nimbus-cli).") var author: String?

        func run() throws {
            try reportingErrors {
                guard let data = FileManager.default.contents(atPath: jsonl) else {
                    throw CLIError("cannot read the file \(jsonl)")
                }
                let session = try StoreSession(path: store, author: author)
                let progress = ImportProgress()
                let count = try session.context.performAndWait {
                    try JSONLImporter(session: session, entity: entity, progress: progress).run(data)
                }
                progress.clear()
                print("imported \(count) \(entity) object(s)")
            }
        }
    }
}

/// Inserts one object per line of a JSON Lines file in one save: every line is applied and
/// checked first; any bad line (unparsable, an unknown key, a value of the wrong type, a
/// validation failure) is reported with its number and nothing is saved.
struct JSONLImporter {
    let session: StoreSession
    let entity: String
    let progress: ImportProgress
    /// Bad lines listed in the error (all are counted).
    static let listedErrors = 20

    /// Runs on the session context's queue; returns the objects saved.
    func run(_ data: Data) throws -> Int {
        let context = session.context
        guard context.managedObjectModel.entitiesByName[entity] != nil else {
            let known = context.managedObjectModel.entities.map(\.name).sorted().joined(separator: ", ")
            throw CLIError("the store's model has no entity '\(entity)' (entities: \(known))")
        }
        var errors: [String] = []
        var errorCount = 0
        var lineOf: [ManagedObjectID: Int] = [:]
        var lineNumber = 0
        var inserted = 0
        func fail(_ message: String) {
            errorCount += 1
            if errors.count < Self.listedErrors { errors.append("line \(lineNumber): \(message)") }
        }
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) { continue }
            let json: Any
            do { json = try JSONSerialization.jsonObject(with: Data(line)) } catch {
                fail("not valid JSON")
                continue
            }
            guard let dictionary = json as? [String: Any] else {
                fail("expected a JSON object ({\"key\": value, …})")
                continue
            }
            do {
                let assignments = try dictionary.keys.sorted().compactMap { key -> ValueParsing.Assignment? in
                    guard let text = try Self.text(dictionary[key]!, key: key) else { return nil }
                    return ValueParsing.Assignment(key: key, operation: .set, value: text)
                }
                let object = try context.insertNewObject(forEntityName: entity)
                lineOf[object.objectID] = lineNumber
                var resolved: [Int: [ManagedObject]] = [:]
                do {
                    try ValueParsing.apply(assignments, to: object, session: session, resolved: &resolved)
                    // The model's rules, per line (the save checks them again, for all at once).
                    try object.validateForInsert()
                } catch {
                    context.delete(object)
                    throw error
                }
                inserted += 1
            } catch {
                fail(Self.message(error))
            }
            if lineNumber % 10_000 == 0 { progress.show("read \(lineNumber) lines") }
        }
        if errorCount > 0 {
            context.rollback()
            throw CLIError(Self.summary(errors, count: errorCount))
        }
        progress.show("saving \(inserted) objects")
        do {
            try context.save()
        } catch let error as NimbusError where !error.validationFailures.isEmpty {
            context.rollback()
            let failures = error.validationFailures
            let listed = failures.prefix(Self.listedErrors).map { failure -> String in
                let line = lineOf[failure.objectID].map { "line \($0): " } ?? ""
                return "\(line)\(failure.entityName).\(failure.property): \(failure.reason)"
            }
            throw CLIError(Self.summary(listed, count: failures.count))
        } catch {
            context.rollback()
            throw error
        }
        return inserted
    }

    static func summary(_ listed: [String], count: Int) -> String {
        let more = count > listed.count ? "; and \(count - listed.count) more" : ""
        return "\(count) bad line(s), nothing saved: " + listed.joined(separator: "; ") + more
    }

    /// A JSON value as `store insert` takes it (`nil`: leave the property unset).
    static func text(_ value: Any, key: String) throws -> String? {
        switch value {
        case is NSNull: return nil
        case let string as String: return string
        case let number as NSNumber:
            // JSON's true and false arrive as NSNumbers of type "c" (char).
            if number.objCType.pointee == CChar(UInt8(ascii: "c")) { return number.boolValue ? "true" : "false" }
            return number.stringValue
        case let list as [Any]:
            return try list.map { item -> String in
                guard let string = item as? String else { throw CLIError("\(key): a list holds strings (object URIs or Entity[key=value])") }
                return string
            }.joined(separator: ",")
        default:
            throw CLIError("\(key): a value is a string, number, boolean, null or a list of strings")
        }
    }

    static func message(_ error: any Error) -> String {
        if let error = error as? CLIError { return error.message }
        if let error = error as? NimbusError { return error.message }
        return "\(error)"
    }
}

/// The progress line of `store import`, on standard error when it is a terminal.
final class ImportProgress: Sendable {
    let isTerminal = isatty(STDERR_FILENO) == 1

    func show(_ text: String) {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    func clear() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
