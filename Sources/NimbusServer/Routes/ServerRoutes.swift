/// Every HTTP route the server registers, as OpenAPI-style templates. `openapi.yaml`
/// documents exactly these; a test checks both against the running server.
package enum ServerRoutes {
    package static let all: [(method: String, path: String)] = [
        ("GET", "/health"),
        ("GET", "/metrics"),
        ("GET", "/v1/containers/{container}/account"),
        ("GET", "/v1/containers/{container}/databases/{database}/zones"),
        ("PUT", "/v1/containers/{container}/databases/{database}/zones/{zone}"),
        ("DELETE", "/v1/containers/{container}/databases/{database}/zones/{zone}"),
        ("POST", "/v1/containers/{container}/databases/{database}/zones/{zone}/records/modify"),
        ("POST", "/v1/containers/{container}/databases/{database}/zones/{zone}/records/lookup"),
        ("POST", "/v1/containers/{container}/databases/{database}/zones/{zone}/changes"),
        ("GET", "/v1/containers/{container}/databases/{database}/zones/{zone}/share"),
        ("PUT", "/v1/containers/{container}/databases/{database}/zones/{zone}/share"),
        ("DELETE", "/v1/containers/{container}/databases/{database}/zones/{zone}/share"),
        ("POST", "/v1/containers/{container}/databases/{database}/changes"),
        ("GET", "/v1/containers/{container}/databases/{database}/push"),
        ("GET", "/v1/containers/{container}/shares"),
        ("GET", "/v1/shares/{secret}"),
        ("POST", "/v1/shares/{secret}/accept"),
        ("PUT", "/v1/containers/{container}/assets"),
        ("PUT", "/v1/containers/{container}/assets/{checksum}"),
        ("GET", "/v1/containers/{container}/assets/{checksum}"),
    ]
}
