import Foundation

extension ManagedObjectModel {
    /// Loads a model drawn in Xcode, so the model of an iOS app opens unchanged on Linux.
    ///
    /// `url` may be a `.xcdatamodeld` package (the version its `.xccurrentversion` names;
    /// without one, its only or last version), a `.xcdatamodel` version folder, the XML
    /// `contents` file inside one, or a `.json` file in the JSON form of a model. For example:
    ///
    /// ```swift
    /// let url = URL(fileURLWithPath: "Posts/Posts.xcdatamodeld")
    /// let model = try ManagedObjectModel(contentsOf: url)
    /// for note in model.unsupportedFeatures { print("not supported:", note) }
    /// ```
    ///
    /// Entities, attributes (types, optionality, defaults, validation), relationships
    /// (inverses, delete rules, counts, order), parent entities, configurations, fetch
    /// indexes, uniqueness constraints and user info are loaded. What Xcode can draw but
    /// Nimbus cannot do yet (fetched properties, fetch request templates, derived and
    /// composite attributes, RTree indexes, …) is listed in ``unsupportedFeatures``, one
    /// readable note per entity and property.
    ///
    /// - Parameter url: The model package, version folder, `contents` file or JSON file.
    /// - Throws: ``NimbusError/Code-swift.struct/io`` when nothing can be read at `url`;
    ///   ``NimbusError/Code-swift.struct/invalidModel`` for malformed XML, unknown attribute
    ///   types, unreadable values or an inconsistent model, naming the file and line.
    public convenience init(contentsOf url: URL) throws {
        if url.pathExtension.lowercased() == "json" {
            let model = try Self.decodeJSON(at: url)
            try self.init(entities: model.entities, configurations: model.configurations,
                          versionIdentifiers: model.versionIdentifiers)
            return
        }
        let location = try XcodeModelLocation.locate(url)
        let file = location.contentsURL.path
        let data: Data
        do {
            data = try Data(contentsOf: location.contentsURL)
        } catch {
            throw NimbusError(.io, "cannot read the model file \(file): \(error.localizedDescription)")
        }
        let declarations = try XcodeModelReader.read(data, file: file)
        do {
            try self.init(entities: declarations.entities, configurations: declarations.configurations,
                          versionIdentifiers: declarations.versionIdentifiers,
                          unsupportedFeatures: declarations.unsupportedFeatures,
                          fetchRequestTemplates: declarations.fetchRequestTemplates)
        } catch let error as NimbusError {
            throw NimbusError(error.code, "\(file): \(error.message)", underlying: error)
        }
    }

    private static func decodeJSON(at url: URL) throws -> ManagedObjectModel {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) {
                throw NimbusError(.io, "no model at \(url.path): the file does not exist")
            }
            throw NimbusError(.io, "cannot read the model file \(url.path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(ManagedObjectModel.self, from: data)
        } catch let error as NimbusError {
            throw NimbusError(error.code, "\(url.path): \(error.message)", underlying: error)
        } catch {
            throw NimbusError(.invalidModel, "\(url.path) is not a model in Nimbus's JSON form: \(error)")
        }
    }
}
