extension ConsoleTemplates {
    /// `/console/shares`.
    static let shares = """
        <table>
        <thead><tr><th scope="col">Owner</th><th scope="col">Container</th><th scope="col">Zone</th><th scope="col">Public</th><th scope="col">Participants</th></tr></thead>
        <tbody>
        {{#shares}}
        <tr><td>{{owner}}</td><td>{{container}}</td><td><a href="/console/zones/{{zoneID}}/records">{{zone}}</a></td><td>{{publicPermission}}</td>
        <td><ul class="plain">{{#participants}}<li>{{name}}: {{permission}}, {{state}}</li>{{/participants}}</ul></td></tr>
        {{/shares}}
        {{^shares}}<tr><td colspan="5">No shares.</td></tr>{{/shares}}
        </tbody>
        </table>
        """
}
