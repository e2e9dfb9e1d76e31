extension ConsoleTemplates {
    /// `/console/users`.
    static let users = """
        <table>
        <caption>{{count}} users</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Used</th><th scope="col">Quota</th></tr></thead>
        <tbody>
        {{#users}}
        <tr><td><a href="/console/users/{{id}}">{{name}}</a></td><td>{{role}}</td><td>{{state}}</td><td>{{used}}</td><td>{{quota}}</td></tr>
        {{/users}}
        </tbody>
        </table>
        """

    /// `/console/users/{id}`: devices, tokens, zones, and the user's actions.
    static let user = """
        <dl class="facts">
        <div><dt>Role</dt><dd>{{role}}</dd></div>
        <div><dt>State</dt><dd>{{state}}</dd></div>
        <div><dt>Quota used</dt><dd>{{used}} of {{quota}} <meter min="0" max="100" value="{{percent}}" aria-label="Quota used">{{percent}}%</meter></dd></div>
        </dl>
        <h2>Devices and tokens</h2>
        <table>
        <thead><tr><th scope="col">Token</th><th scope="col">Device</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last seen</th><th scope="col">Requests</th><th scope="col">Errors</th><th scope="col">State</th><th scope="col">Action</th></tr></thead>
        <tbody>
        {{#tokens}}
        <tr><td>#{{id}}</td><td>{{device}}</td><td>{{created}}</td><td>{{expires}}</td><td>{{lastSeen}}</td><td>{{requests}}</td><td>{{errors}}</td><td>{{state}}</td>
        <td>{{#live}}<form method="post" action="/console/tokens/{{id}}/revoke" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" aria-label="Revoke token {{id}} of {{device}}">Revoke</button></form>{{/live}}</td></tr>
        {{/tokens}}
        {{^tokens}}<tr><td colspan="9">No tokens.</td></tr>{{/tokens}}
        </tbody>
        </table>
        <h2>Zones</h2>
        {{{zones}}}
        <h2>Actions</h2>
        <form method="post" action="/console/users/{{id}}/quota" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="quota">Quota in bytes (empty: the server's default)</label>
        <input id="quota" name="quota" inputmode="numeric" value="{{quotaBytes}}">
        <button type="submit">Change quota</button>
        </form>
        <form method="post" action="/console/users/{{id}}/{{toggle}}" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="danger">{{toggleLabel}}</button>
        </form>
        """

    /// A table of zones (a user's, or the public database's).
    static let zones = """
        <table>
        <thead><tr><th scope="col">Container</th><th scope="col">Zone</th><th scope="col">Records</th><th scope="col">Bytes</th><th scope="col">Changes</th><th scope="col">Shared</th><th scope="col">Pages</th></tr></thead>
        <tbody>
        {{#zones}}
        <tr><td>{{container}}</td><td><a href="/console/zones/{{rowID}}/records">{{name}}</a></td><td>{{records}}</td><td>{{bytes}}</td><td>{{seq}}</td><td>{{shared}}</td>
        <td><a href="/console/zones/{{rowID}}/schema">Schema</a> · <a href="/console/zones/{{rowID}}/delete">Delete…</a></td></tr>
        {{/zones}}
        {{^zones}}<tr><td colspan="7">No zones.</td></tr>{{/zones}}
        </tbody>
        </table>
        """
}
