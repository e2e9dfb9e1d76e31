import SwiftDiagnostics
import SwiftSyntax

/// What `@Managed` cannot express, reported at the declaration at fault.
struct ManagedDiagnostic: DiagnosticMessage {
    let message: String
    let id: String
    var severity: DiagnosticSeverity = .error

    var diagnosticID: MessageID { MessageID(domain: "Nimbus.Managed", id: id) }

    static let notAClass = ManagedDiagnostic(
        message: "@Managed applies to classes: a managed object is a class (ManagedObject or a @Managed class)", id: "notAClass")
    static let noSuperclass = ManagedDiagnostic(
        message: "a @Managed class inherits from ManagedObject or from another @Managed class", id: "noSuperclass")
    static let generic = ManagedDiagnostic(
        message: "a @Managed class cannot be generic: an entity has one fixed set of properties", id: "generic")
    static func untyped(_ name: String) -> ManagedDiagnostic {
        .init(message: "give '\(name)' an explicit type: @Managed derives the entity from declared types", id: "untyped")
    }
    static func constant(_ name: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' is a let: properties of a managed object change, declare it with var", id: "constant")
    }
    static func modifier(_ name: String, _ modifier: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' cannot be \(modifier): its value lives in the object's storage", id: "modifier")
    }
    static func observers(_ name: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' cannot have willSet/didSet: override willSave() or observe the context instead", id: "observers")
    }
    static func multipleBindings(_ names: String) -> ManagedDiagnostic {
        .init(message: "declare \(names) one per line: each property is its own attribute or relationship", id: "multipleBindings")
    }
    static func unsupportedType(_ name: String, _ type: String, _ why: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' has type \(type), which an entity cannot hold: \(why)", id: "unsupportedType")
    }
    static func wrapper(_ name: String, _ attribute: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' has attribute @\(attribute): @Managed properties take only @Attribute and @Relationship", id: "wrapper")
    }
    static func attributeOnRelationship(_ name: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' is a to-many relationship (a Set or an array): use @Relationship, not @Attribute", id: "attributeOnRelationship")
    }
    static func requiredToOne(_ name: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' has @Relationship but a non-optional type: a to-one relationship is nil until set, declare it optional", id: "requiredToOne")
    }
    static func bothOptions(_ name: String) -> ManagedDiagnostic {
        .init(message: "'\(name)' has both @Attribute and @Relationship: a property is one or the other", id: "bothOptions")
    }
    static let entityNameLiteral = ManagedDiagnostic(
        message: "entityName must be a string literal", id: "entityNameLiteral")
    static let optionsOutsideManaged = ManagedDiagnostic(
        message: "@Attribute and @Relationship apply to stored properties of a @Managed class", id: "optionsOutsideManaged")
}

struct AddSuperclassFixIt: FixItMessage {
    var message: String { "inherit from ManagedObject" }
    var fixItID: MessageID { MessageID(domain: "Nimbus.Managed", id: "addSuperclass") }
}
