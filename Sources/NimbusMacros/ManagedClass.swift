import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A class that `@Managed` applies to, with its stored properties and the code they make.
struct ManagedClass {
    let name: String
    /// `public `, `package ` or empty: the access of the members the macro writes.
    let access: String
    /// The superclass when it is another `@Managed` class; nil when it is `ManagedObject`.
    let managedSuperclass: String?
    let entityName: ExprSyntax
    let isAbstract: ExprSyntax
    /// Whether the class is `final`: no subclass can root a key path at another type.
    let isFinal: Bool
    let properties: [StoredProperty]

    /// Reads the class; reports what it cannot express and returns nil when the class
    /// itself is unusable (its properties' problems are reported but do not stop it).
    static func read(_ node: AttributeSyntax, _ declaration: some DeclGroupSyntax, reporting context: (any MacroExpansionContext)?) -> ManagedClass? {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context?.diagnose(Diagnostic(node: node, message: ManagedDiagnostic.notAClass))
            return nil
        }
        if let generics = classDecl.genericParameterClause {
            context?.diagnose(Diagnostic(node: generics, message: ManagedDiagnostic.generic))
            return nil
        }
        guard let superclass = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription else {
            let fixed = classDecl.with(\.name, classDecl.name.trimmed).with(\.inheritanceClause, InheritanceClauseSyntax(
                colon: .colonToken(trailingTrivia: .space),
                inheritedTypes: [InheritedTypeSyntax(type: TypeSyntax("ManagedObject"), trailingTrivia: .space)]))
            context?.diagnose(Diagnostic(node: classDecl.name, message: ManagedDiagnostic.noSuperclass, fixIts: [
                FixIt(message: AddSuperclassFixIt(), changes: [.replace(oldNode: Syntax(classDecl), newNode: Syntax(fixed))]),
            ]))
            return nil
        }
        let isRoot = superclass == "ManagedObject" || superclass == "Nimbus.ManagedObject"
        let modifiers = classDecl.modifiers.map(\.name.text)
        let access = modifiers.contains("public") || modifiers.contains("open") ? "public " : modifiers.contains("package") ? "package " : ""
        var entityName = ExprSyntax(StringLiteralExprSyntax(content: classDecl.name.text))
        var isAbstract: ExprSyntax = "false"
        for argument in node.arguments?.as(LabeledExprListSyntax.self) ?? [] {
            switch argument.label?.text {
            case "entityName":
                if argument.expression.is(StringLiteralExprSyntax.self) {
                    entityName = argument.expression.trimmed
                } else {
                    context?.diagnose(Diagnostic(node: argument.expression, message: ManagedDiagnostic.entityNameLiteral))
                }
            case "isAbstract": isAbstract = argument.expression.trimmed
            default: break
            }
        }
        let (properties, diagnostics) = StoredProperty.all(in: classDecl.memberBlock.members)
        for diagnostic in diagnostics { context?.diagnose(diagnostic) }
        return ManagedClass(name: classDecl.name.text, access: access, managedSuperclass: isRoot ? nil : superclass,
                            entityName: entityName, isAbstract: isAbstract, isFinal: modifiers.contains("final"), properties: properties)
    }

    /// A class name without its module (`Blog.Post` → `Post`), for the names of generated members.
    static func unqualified(_ className: String) -> String {
        className.split(separator: ".").last.map(String.init) ?? className
    }

    /// The name of the static that holds the number of slots this class's chain uses.
    static func slotEndName(_ className: String) -> String {
        "__nimbusSlotEnd_" + unqualified(className)
    }

    /// The name of the static that names this class's and its superclasses' properties for a
    /// key path rooted at the class or at any subclass (`\Photo.caption` for `Media.caption`
    /// is not `\Media.caption`, so a subclass's naming asks with its own root type).
    static func propertyNameFunction(_ className: String) -> String {
        "__nimbusPropertyName_" + unqualified(className)
    }

    /// The slot expression of the property at `ordinal` among this class's own properties.
    func slot(_ ordinal: Int) -> ExprSyntax {
        guard let managedSuperclass else { return "\(raw: ordinal)" }
        return "\(raw: managedSuperclass).\(raw: Self.slotEndName(managedSuperclass)) + \(raw: ordinal)"
    }

    /// The members `@Managed` adds: the entity description, the slot names, the key-path
    /// naming for `#Predicate`, the slot count for subclasses, and the copies of attribute
    /// values the accessors read.
    var members: [DeclSyntax] {
        entityMembers + copyMembers
    }

    /// A stored copy for each attribute of a built-in type, and the override that makes
    /// the copies from the object's storage (`ManagedObject+TypedValues.swift`).
    var copyMembers: [DeclSyntax] {
        var fields: [DeclSyntax] = []
        var loads: [String] = []
        for (ordinal, property) in properties.enumerated() {
            guard let (typeSyntax, isOptional) = property.copiedType else { continue }
            let copy = StoredProperty.copyName(property.name)
            let type = typeSyntax.trimmedDescription
            if isOptional {
                fields.append("@exclusivity(unchecked) private final var \(raw: copy): \(raw: type)? = nil")
                loads.append("    \(copy) = source.value(slot: \(slot(ordinal)))")
            } else {
                fields.append("@exclusivity(unchecked) private final var \(raw: copy): \(raw: type) = \(raw: type).managedNilValue")
                loads.append("    \(copy) = source.value(slot: \(slot(ordinal))) ?? \(type).managedNilValue")
            }
        }
        guard !loads.isEmpty else { return [] }
        return fields + [
            """
            \(raw: access)override func _loadTypedValues(from source: _TypedValueSource) {
                super._loadTypedValues(from: source)
            \(raw: loads.joined(separator: "\n"))
            }
            """,
        ]
    }

    private var entityMembers: [DeclSyntax] {
        let override = managedSuperclass == nil ? "" : "override "
        let ownNames = "[" + properties.map { "\"\($0.name)\"" }.joined(separator: ", ") + "]"
        let slotNames = managedSuperclass == nil ? ownNames : "super.managedSlotNames + \(ownNames)"
        let parent = managedSuperclass.map { "\($0).managedEntityName" } ?? "nil"
        let declared = properties.map { "            " + schemaCall(for: $0) }.joined(separator: ",\n")
        let staticCases = properties.map { "        case \\\(name).\($0.name): return \"\($0.name)\"" }.joined(separator: "\n")
        let rootCases = properties.map { "            case \\KeyPathRoot.\($0.name): return \"\($0.name)\"" }.joined(separator: "\n")
        let subclassCases = isFinal || properties.isEmpty ? "" : """

                if root != \(name).self {
                    switch keyPath {
            \(rootCases)
                    default: break
                    }
                }
            """
        let inherited = managedSuperclass.map { "\($0).\(Self.propertyNameFunction($0))(for: keyPath, root: root)" } ?? "nil"
        let slotEnd = managedSuperclass.map { "\($0).\(Self.slotEndName($0)) + \(properties.count)" } ?? "\(properties.count)"
        return [
            "\(raw: access)\(raw: override)class var managedEntityName: String { \(entityName) }",
            "\(raw: access)\(raw: override)class var managedSlotNames: [String] { \(raw: slotNames) }",
            """
            \(raw: access)\(raw: override)class func managedEntityDescription() -> EntityDescription {
                ManagedSchema.entity(managedEntityName, class: \(raw: name).self, parent: \(raw: parent), isAbstract: \(isAbstract), properties: [
            \(raw: declared)
                ])
            }
            """,
            "\(raw: access)\(raw: override)class func propertyName(for keyPath: AnyKeyPath) -> String? { \(raw: Self.propertyNameFunction(name))(for: keyPath, root: Self.self) }",
            """
            \(raw: access)static func \(raw: Self.propertyNameFunction(name))<KeyPathRoot: \(raw: name)>(for keyPath: AnyKeyPath, root: KeyPathRoot.Type) -> String? {
                switch keyPath {
            \(raw: staticCases)
                default: break
                }\(raw: subclassCases)
                return \(raw: inherited)
            }
            """,
            "\(raw: access)static var \(raw: Self.slotEndName(name)): Int { \(raw: slotEnd) }",
        ]
    }

    /// The `ManagedSchema` call that describes one property.
    func schemaCall(for property: StoredProperty) -> String {
        let name = "\"\(property.name)\""
        var options = ""
        if let arguments = property.attributeArguments {
            options = ", attribute: ManagedSchema.AttributeOptions(\(arguments.trimmedDescription))"
        } else if let arguments = property.relationshipArguments {
            options = ", relationship: ManagedSchema.RelationshipOptions(\(arguments.trimmedDescription))"
        }
        let defaultValue = property.initializer.map { ", default: \($0.trimmedDescription)" } ?? ""
        switch property.shape {
        case let .optional(type):
            return "ManagedSchema.property(\(name), \(type.trimmedDescription).self, isOptional: true\(defaultValue)\(options))"
        case let .required(type):
            return "ManagedSchema.property(\(name), \(type.trimmedDescription).self, isOptional: false\(defaultValue)\(options))"
        case let .toMany(type, ordered):
            return "ManagedSchema.toMany(\(name), \(type.trimmedDescription).self, ordered: \(ordered)\(options))"
        }
    }
}
