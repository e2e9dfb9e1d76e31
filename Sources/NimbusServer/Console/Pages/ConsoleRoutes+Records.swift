import Foundation
import Hummingbird
import NIOCore
import NimbusWire

extension ConsoleRoutes {
    /// Records per page in the browser.
    static let pageSize = 50

    /// `GET /console/zones/{id}/records?type=&field=&value=&sort=&after=`: the record browser,
    /// paged by keyset (the last row's sort key), so every page costs the same on 100,000 records.
    func records(_ visit: Visit) async throws -> Response {
        let zone = try await requireZone(visit)
        let query = FormData(body: visit.request.uri.query ?? "")
        let type = query["type"].flatMap { $0.isEmpty ? nil : $0 }
        let field = query["field"].flatMap { $0.isEmpty ? nil : $0 }
        let value = query["value"] ?? ""
        guard let order = RecordQuery.Order(rawValue: query["sort"].flatMap { $0.isEmpty ? nil : $0 } ?? "name") else {
            throw WireError(.invalidArguments, "Sort by one of: \(RecordQuery.Order.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        var after: RecordCursor?
        if let token = query["after"], !token.isEmpty {
            guard let cursor = RecordCursor(token: token) else { throw WireError(.invalidArguments, "The page cursor “\(token)” is not one this console made.") }
            after = cursor
        }
        let page = try await visit.storage.recordPage(RecordQuery(
            zoneRowID: zone.rowID, recordType: type, fieldName: field, fieldValue: field == nil ? nil : value,
            order: order, after: after, limit: Self.pageSize))
        let owner = try await visit.storage.consoleUser(id: zone.ownerID)
        let types = try await visit.storage.recordTypes(zoneRowID: zone.rowID)
        let base = "/console/zones/\(zone.rowID)/records"
        var filters: [(String, String)] = []
        if let type { filters.append(("type", type)) }
        if let field { filters.append(("field", field)); filters.append(("value", value)) }
        filters.append(("sort", order.rawValue))
        var values: [String: Any] = [
            "zoneID": zone.rowID, "zoneName": zone.name, "container": zone.container,
            "ownerID": zone.ownerID, "ownerName": owner?.name ?? "public database",
            "field": field ?? "", "value": value, "shown": page.records.count,
            "types": types.map { ["name": $0, "selected": $0 == type] },
            "sorts": [
                ["value": "name", "label": "Name (A–Z)"], ["value": "-name", "label": "Name (Z–A)"],
                ["value": "modified", "label": "Modified (oldest first)"], ["value": "-modified", "label": "Modified (newest first)"],
            ].map { option -> [String: Any] in ["value": option["value"]!, "label": option["label"]!, "selected": option["value"] == order.rawValue] },
            "rows": page.records.map { record -> [String: Any] in
                [
                    "zoneID": zone.rowID, "name": record.recordName, "nameQuery": Self.queryEscaped(record.recordName),
                    "type": record.recordType, "modified": ConsoleFormat.time(record.modified.time), "device": record.modified.device,
                    "summary": Self.summary(record.fields),
                ]
            },
        ]
        if after != nil { values["first"] = Self.link(base, filters) }
        if let next = page.next { values["next"] = Self.link(base, filters + [("after", next.token)]) }
        return render("records", title: "Records of \(zone.name)", values: values, visit: visit, section: owner == nil ? "/console/zones" : "/console/users")
    }

    /// `GET /console/zones/{id}/record?name=`: one record.
    func record(_ visit: Visit) async throws -> Response {
        let zone = try await requireZone(visit)
        let name = FormData(body: visit.request.uri.query ?? "")["name"] ?? ""
        guard let record = try await console.services.storage.lookupRecords(zone.key, names: [name])[name], !record.isTombstone else {
            throw WireError(.unknownItem, "No record named “\(name)” in this zone.")
        }
        let fields = record.fields.sorted { $0.key < $1.key }.map { key, field -> [String: Any] in
            var row: [String: Any] = [
                "name": key, "type": field.value?.typeName ?? "none",
                "stamp": "\(ConsoleFormat.time(field.stamp.time)) by \(field.stamp.device)",
            ]
            switch field.value {
            case .asset(let asset):
                row["asset"] = ["href": "/console/zones/\(zone.rowID)/assets/\(asset.checksum)", "size": asset.size, "checksum": asset.checksum]
            case .reference(let reference):
                row["reference"] = [
                    "href": "/console/zones/\(zone.rowID)/record?name=\(Self.queryEscaped(reference.recordName))",
                    "target": reference.recordName, "action": reference.action.rawValue,
                ]
            case let value?:
                row["text"] = Self.display(value)
            case nil:
                row["text"] = "(no value)"
            }
            return row
        }
        return render(
            "record", title: "Record \(record.recordName)",
            values: [
                "zoneID": zone.rowID, "zoneName": zone.name, "name": record.recordName, "type": record.recordType,
                "changeTag": record.changeTag, "size": record.size, "fields": fields,
                "created": "\(ConsoleFormat.time(record.created.time)) by \(record.created.device)",
                "modified": "\(ConsoleFormat.time(record.modified.time)) by \(record.modified.device)",
            ],
            visit: visit)
    }

    /// `GET /console/zones/{id}/schema`.
    func schema(_ visit: Visit) async throws -> Response {
        let zone = try await requireZone(visit)
        let entries = try await visit.storage.schema(zoneRowID: zone.rowID)
        return render(
            "schema", title: "Schema of \(zone.name)",
            values: [
                "zoneID": zone.rowID, "zoneName": zone.name,
                "types": entries.map { entry -> [String: Any] in
                    [
                        "recordType": entry.recordType, "records": entry.records,
                        "fields": entry.fields.map { ["name": $0.name, "types": $0.types.joined(separator: ", ")] },
                    ]
                },
            ],
            visit: visit)
    }

    /// `GET /console/zones/{id}/assets/{checksum}`: an asset a record of the zone refers to, as a download.
    func asset(_ visit: Visit) async throws -> Response {
        _ = try await requireZone(visit)
        let checksum = visit.context.parameters.get("checksum") ?? ""
        guard checksum.utf8.count == 64, checksum.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw WireError(.invalidArguments, "An asset is named by the 64 lowercase hexadecimal digits of its SHA-256.")
        }
        let assets = console.services.assets
        guard assets.exists(checksum) else { throw WireError(.unknownItem, "The asset \(checksum) is not stored on this server.") }
        let path = assets.path(for: checksum)
        let data = try await AssetStore.blocking { try Data(contentsOf: URL(fileURLWithPath: path)) }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/octet-stream", .cacheControl: "no-store",
                HTTPFields.Element.Name("Content-Disposition")!: "attachment; filename=\"\(checksum)\"",
                HTTPFields.Element.Name("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: Display

    /// The first fields of a record, one line, shortened.
    static func summary(_ fields: [String: Field]) -> String {
        let text = fields.sorted { $0.key < $1.key }.prefix(4).map { key, field in
            "\(key): \(field.value.map(display) ?? "–")"
        }.joined(separator: " · ")
        return text.count > 160 ? String(text.prefix(159)) + "…" : text
    }

    /// A value as text.
    static func display(_ value: FieldValue) -> String {
        switch value {
        case .string(let text): text
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .date(let date): ConsoleFormat.time(Int64(date.timeIntervalSince1970 * 1000))
        case .bytes(let data): "\(data.count) bytes: " + data.prefix(24).map { String(format: "%02x", $0) }.joined() + (data.count > 24 ? "…" : "")
        case .asset(let asset): "asset \(asset.checksum.prefix(12))… (\(asset.size) bytes)"
        case .reference(let reference): "→ \(reference.recordName)"
        case .list(let values): "[" + values.map(display).joined(separator: ", ") + "]"
        }
    }

    /// A link with query parameters.
    static func link(_ path: String, _ parameters: [(String, String)]) -> String {
        path + "?" + parameters.map { "\(queryEscaped($0.0))=\(queryEscaped($0.1))" }.joined(separator: "&")
    }

    /// Text for a URL query value.
    static func queryEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }
}
