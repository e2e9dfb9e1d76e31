import Foundation
import Hummingbird
import NimbusWire

/// `PUT /v1/containers/{container}/assets[/{checksum}]` and
/// `GET /v1/containers/{container}/assets/{checksum}` (with `Range`).
struct AssetRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.put("assets", use: upload)
        group.put("assets/:checksum", use: upload)
        group.get("assets/:checksum") { request, context in
            let principal = try context.requirePrincipal()
            let container = try containerName(context)
            let checksum = try checksumParameter(context)
            guard try await services.storage.mayReadAsset(container: container, checksum: checksum, userID: principal.userID) else {
                throw WireError(.permissionFailure, "No record this user can read refers to asset \(checksum), and the user did not upload it.")
            }
            let path = services.assets.path(for: checksum)
            guard let size = try await services.assets.size(of: checksum) else {
                throw WireError(.unknownItem, "The asset \(checksum) is not stored on this server.")
            }
            var headers: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
            guard let rangeHeader = request.headers[.range] else {
                headers[.contentLength] = String(size)
                if size == 0 { return Response(status: .ok, headers: headers) }
                let body = try await FileIO().loadFile(path: path, context: context)
                return Response(status: .ok, headers: headers, body: body)
            }
            let range = try ByteRange.parse(rangeHeader, size: size)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            let body = try await FileIO().loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }

    @Sendable func upload(request: Request, context: NimbusRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let container = try containerName(context)
        let expected = context.parameters.get("checksum")
        if let expected, !ModifyValidator.isChecksum(expected) {
            throw WireError(.invalidArguments, "'\(expected)' is not a lowercase hexadecimal SHA-256.")
        }
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > services.configuration.maximumAssetBytes {
            throw WireError(.limitExceeded, "The asset is larger than \(services.configuration.maximumAssetBytes) bytes.")
        }
        // A fast refusal when the declared length cannot fit; the binding check is the one
        // in the transaction that charges the bytes (chunked or concurrent uploads).
        let declared = request.headers[.contentLength].flatMap(Int64.init) ?? 0
        if declared > 0, let user = try await services.storage.user(named: principal.userName) {
            let quota = user.quotaBytes ?? services.configuration.defaultQuotaBytes
            if user.usedBytes + declared > quota {
                throw StorageErrors.quotaExceeded(used: user.usedBytes, adding: declared, quota: quota)
            }
        }
        let received = try await services.assets.receive(
            request.body, maximumBytes: services.configuration.maximumAssetBytes, expectedChecksum: expected)
        let asset = received.reference
        do {
            try await services.storage.recordAssetUpload(
                container: container, checksum: asset.checksum, size: asset.size, userID: principal.userID,
                now: services.clock.now(), defaultQuotaBytes: services.configuration.defaultQuotaBytes)
            try await services.assets.keep(received)
        } catch {
            await services.assets.discard(received)
            throw error
        }
        return try JSONResponse.make(AssetUploadResponse(asset: asset), status: .created)
    }

    private func containerName(_ context: NimbusRequestContext) throws -> String {
        let container = try context.pathParameter("container")
        if let problem = NameRules.problem(with: container) {
            throw WireError(.invalidArguments, "The container name \(problem).")
        }
        return container
    }

    private func checksumParameter(_ context: NimbusRequestContext) throws -> String {
        let checksum = context.parameters.get("checksum") ?? ""
        guard ModifyValidator.isChecksum(checksum) else {
            throw WireError(.invalidArguments, "'\(checksum)' is not a lowercase hexadecimal SHA-256.")
        }
        return checksum
    }
}

/// One `Range: bytes=…` specification.
enum ByteRange {
    /// A well-formed range that lies outside the asset: 416 with `Content-Range: bytes */<size>`
    /// (RFC 9110 §15.5.17), the body an `invalidArguments` error.
    struct NotSatisfiable: ResponseError {
        var header: String
        var size: Int64
        var wireError: WireError { WireError(.invalidArguments, "The range '\(header)' lies outside the asset's \(size) bytes.") }
        var status: HTTPResponse.Status { .rangeNotSatisfiable }
        var headers: HTTPFields { [.contentRange: "bytes */\(size)"] }
    }

    /// Parses `bytes=a-b`, `bytes=a-` or `bytes=-n` against a file size.
    /// - Throws: `invalidArguments` (400) for other forms; ``NotSatisfiable`` (416) for a
    ///   range outside the file.
    static func parse(_ header: String, size: Int64) throws -> ClosedRange<Int64> {
        guard header.hasPrefix("bytes="), !header.contains(",") else {
            throw WireError(.invalidArguments, "Only a single `Range: bytes=start-end` is supported.")
        }
        let spec = header.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw WireError(.invalidArguments, "The range '\(header)' is malformed.") }
        let lower: Int64
        let upper: Int64
        switch (Int64(parts[0]), Int64(parts[1])) {
        case (let start?, let end?) where start <= end: (lower, upper) = (start, min(end, size - 1))
        case (let start?, nil) where parts[1].isEmpty: (lower, upper) = (start, size - 1)
        case (nil, let suffix?) where parts[0].isEmpty && suffix > 0: (lower, upper) = (max(0, size - suffix), size - 1)
        default: throw WireError(.invalidArguments, "The range '\(header)' is malformed.")
        }
        guard size > 0, lower >= 0, lower < size, lower <= upper else {
            throw NotSatisfiable(header: header, size: size)
        }
        let range = lower...upper
        return range
    }
}
