import Nimbus

// The classes of the Library model, declared by hand as Xcode's "Category/Extension" code
// generation expects; `nimbus codegen --style extension` wrote their properties beside.

/// An author of books.
public final class Author: ManagedObject {
    /// A method of the class's own, beside the generated properties.
    public var displayName: String { name.isEmpty ? "Anonymous" : name }
}

/// A book.
public final class Book: ManagedObject {}
