import SwiftDiagnostics
import SwiftSyntax

/// A stored property of a `@Managed` class, read from its declaration.
struct StoredProperty {
    /// What the declared type makes of the property.
    enum Shape {
        /// `T?`: an optional attribute or a to-one relationship (the type decides).
        case optional(TypeSyntax)
        /// `T`: a required attribute.
        case required(TypeSyntax)
        /// `Set<T>` or `[T]`: a to-many relationship.
        case toMany(TypeSyntax, ordered: Bool)
    }

    let name: String
    let shape: Shape
    let initializer: ExprSyntax?
    /// The arguments of `@Attribute(…)`, when present.
    let attributeArguments: LabeledExprListSyntax?
    /// The arguments of `@Relationship(…)`, when present.
    let relationshipArguments: LabeledExprListSyntax?

    /// The stored properties of a class body, and what is wrong with the others.
    static func all(in members: MemberBlockItemListSyntax) -> (properties: [StoredProperty], diagnostics: [Diagnostic]) {
        var properties: [StoredProperty] = []
        var diagnostics: [Diagnostic] = []
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            switch read(variable) {
            case .skipped: continue
            case let .property(property): properties.append(property)
            case let .failed(found): diagnostics += found
            }
        }
        return (properties, diagnostics)
    }

    enum Reading {
        case skipped
        case property(StoredProperty)
        case failed([Diagnostic])
    }

    /// Reads one variable declaration: skipped when it is static or computed.
    static func read(_ variable: VariableDeclSyntax) -> Reading {
        let modifiers = variable.modifiers.map(\.name.text)
        if modifiers.contains("static") || modifiers.contains("class") { return .skipped }
        // Computed properties (a getter or a code block) are the class's own business.
        let stored = variable.bindings.filter { binding in
            guard let accessors = binding.accessorBlock else { return true }
            guard case let .accessors(list) = accessors.accessors else { return false }
            return list.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
        if stored.isEmpty { return .skipped }
        let names = stored.map { $0.pattern.trimmedDescription }
        if variable.bindings.count > 1 {
            return .failed([Diagnostic(node: variable, message: ManagedDiagnostic.multipleBindings(names.joined(separator: ", ")))])
        }
        let binding = stored.first!
        let name = binding.pattern.trimmedDescription
        var problems: [Diagnostic] = []
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            problems.append(Diagnostic(node: variable.bindingSpecifier, message: ManagedDiagnostic.constant(name)))
        }
        for modifier in variable.modifiers where ["lazy", "weak", "unowned", "override"].contains(modifier.name.text) {
            problems.append(Diagnostic(node: modifier, message: ManagedDiagnostic.modifier(name, modifier.name.text)))
        }
        if binding.accessorBlock != nil {
            problems.append(Diagnostic(node: binding.accessorBlock!, message: ManagedDiagnostic.observers(name)))
        }
        var attributeArguments: LabeledExprListSyntax?
        var relationshipArguments: LabeledExprListSyntax?
        var attributeNode: AttributeSyntax?
        var relationshipNode: AttributeSyntax?
        for element in variable.attributes {
            guard case let .attribute(attribute) = element else { continue }
            switch attribute.attributeName.trimmedDescription {
            case "Attribute", "Nimbus.Attribute":
                attributeNode = attribute
                attributeArguments = attribute.arguments?.as(LabeledExprListSyntax.self) ?? []
            case "Relationship", "Nimbus.Relationship":
                relationshipNode = attribute
                relationshipArguments = attribute.arguments?.as(LabeledExprListSyntax.self) ?? []
            case "_ManagedProperty", "Nimbus._ManagedProperty":
                continue
            case let other:
                problems.append(Diagnostic(node: attribute, message: ManagedDiagnostic.wrapper(name, other)))
            }
        }
        if let attributeNode, relationshipNode != nil {
            problems.append(Diagnostic(node: attributeNode, message: ManagedDiagnostic.bothOptions(name)))
        }
        guard let type = binding.typeAnnotation?.type else {
            problems.append(Diagnostic(node: binding.pattern, message: ManagedDiagnostic.untyped(name)))
            return .failed(problems)
        }
        let shape: Shape
        let markedTransformable = attributeArguments?.contains { $0.label == nil && $0.expression.trimmedDescription == ".transformable" } ?? false
        switch classify(type, markedTransformable: markedTransformable) {
        case let .success(found): shape = found
        case let .failure(why):
            problems.append(Diagnostic(node: type, message: ManagedDiagnostic.unsupportedType(name, type.trimmedDescription, why.why)))
            return .failed(problems)
        }
        if case .toMany = shape, let attributeNode {
            problems.append(Diagnostic(node: attributeNode, message: ManagedDiagnostic.attributeOnRelationship(name)))
        }
        if case .required = shape, let relationshipNode {
            problems.append(Diagnostic(node: relationshipNode, message: ManagedDiagnostic.requiredToOne(name)))
        }
        guard problems.isEmpty else { return .failed(problems) }
        return .property(StoredProperty(name: name, shape: shape, initializer: binding.initializer?.value,
                                        attributeArguments: attributeArguments, relationshipArguments: relationshipArguments))
    }

    struct Unsupported: Error { let why: String }

    /// What a declared type makes of a property, or why it cannot be stored.
    ///
    /// A collection is a to-many relationship, unless it holds values (`[String]`,
    /// `Set<UUID>`, `[String: Int]`) or the property is marked `@Attribute(.transformable)`:
    /// then it is a transformable attribute (`ManagedTransformable`).
    static func classify(_ type: TypeSyntax, markedTransformable: Bool = false) -> Result<Shape, Unsupported> {
        if let optional = type.as(OptionalTypeSyntax.self) {
            if isValueCollection(optional.wrappedType, markedTransformable: markedTransformable) { return .success(.optional(optional.wrappedType.trimmed)) }
            return plain(optional.wrappedType, "a property is optional once (T?, not T??)").map { .optional($0) }
        }
        if isValueCollection(type, markedTransformable: markedTransformable) { return .success(.required(type.trimmed)) }
        if type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return .failure(Unsupported(why: "declare it optional (T?) instead of implicitly unwrapped (T!)"))
        }
        if let array = type.as(ArrayTypeSyntax.self) {
            return plain(array.element, "the members of a to-many relationship are objects, never nil").map { .toMany($0, ordered: true) }
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), let arguments = identifier.genericArgumentClause?.arguments,
           arguments.count == 1, case let .type(argument) = arguments.first!.argument {
            switch identifier.name.text {
            case "Optional": return plain(argument, "a property is optional once (T?, not T??)").map { .optional($0) }
            case "Set": return plain(argument, "the members of a to-many relationship are objects, never nil").map { .toMany($0, ordered: false) }
            case "Array": return plain(argument, "the members of a to-many relationship are objects, never nil").map { .toMany($0, ordered: true) }
            default: break
            }
        }
        return plain(type, "").map { .required($0) }
    }

    /// The Swift type of an attribute whose accessor reads a copy kept in the object
    /// (`ManagedObject+TypedValues.swift`): one of the built-in attribute types, optional
    /// or not. Relationships, transformable and custom types read the object's storage.
    var copiedType: (type: TypeSyntax, isOptional: Bool)? {
        switch shape {
        case let .optional(type) where Self.valueTypeNames.contains(type.trimmedDescription): (type, true)
        case let .required(type) where Self.valueTypeNames.contains(type.trimmedDescription): (type, false)
        default: nil
        }
    }

    /// The name of the stored copy of a property's value (see ``copiedType``).
    static func copyName(_ property: String) -> String {
        "__nimbusValue_" + property
    }

    /// The Swift types of attributes: a collection of them holds values, not objects.
    static let valueTypeNames: Set<String> = [
        "String", "Int", "Int16", "Int32", "Int64", "Double", "Float", "Bool", "Decimal", "Date", "Data", "UUID", "URL",
    ].reduce(into: []) { names, name in
        names.insert(name)
        names.insert("Foundation." + name)
        names.insert("Swift." + name)
    }

    /// Whether a type is an array, set or dictionary stored as one transformable attribute:
    /// its elements are value types, or the property says so with `@Attribute(.transformable)`.
    static func isValueCollection(_ type: TypeSyntax, markedTransformable: Bool) -> Bool {
        let elements: [TypeSyntax]
        if let array = type.as(ArrayTypeSyntax.self) {
            elements = [array.element]
        } else if let dictionary = type.as(DictionaryTypeSyntax.self) {
            elements = [dictionary.key, dictionary.value]
        } else if let identifier = type.as(IdentifierTypeSyntax.self), ["Array", "Set", "Dictionary"].contains(identifier.name.text),
                  let arguments = identifier.genericArgumentClause?.arguments {
            elements = arguments.compactMap { argument in
                if case let .type(type) = argument.argument { return type }
                return nil
            }
        } else {
            return false
        }
        if markedTransformable { return true }
        return elements.allSatisfy { valueTypeNames.contains($0.trimmedDescription) || isValueCollection($0, markedTransformable: false) }
    }

    private static func plain(_ type: TypeSyntax, _ optionalReason: String) -> Result<TypeSyntax, Unsupported> {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return .failure(Unsupported(why: optionalReason))
        }
        if type.is(DictionaryTypeSyntax.self) {
            return .failure(Unsupported(why: "a dictionary of other than value types is stored when marked @Attribute(.transformable) (a transformable attribute of Codable values)"))
        }
        if type.is(TupleTypeSyntax.self) {
            return .failure(Unsupported(why: "a tuple is no attribute type; declare one property per element"))
        }
        if type.is(FunctionTypeSyntax.self) || type.is(AttributedTypeSyntax.self) {
            return .failure(Unsupported(why: "a function cannot be stored"))
        }
        if type.is(SomeOrAnyTypeSyntax.self) || type.is(CompositionTypeSyntax.self) || type.is(MetatypeTypeSyntax.self) {
            return .failure(Unsupported(why: "an attribute has one concrete type"))
        }
        if let array = type.as(ArrayTypeSyntax.self) {
            _ = array
            return .failure(Unsupported(why: "a nested collection is stored when marked @Attribute(.transformable) (a transformable attribute of Codable values)"))
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), ["Set", "Array", "Dictionary"].contains(identifier.name.text) {
            return .failure(Unsupported(why: "a nested collection is stored when marked @Attribute(.transformable) (a transformable attribute of Codable values)"))
        }
        return .success(type.trimmed)
    }
}
