extension ConsoleTemplates {
    /// `/console/requests`: the request log and the transfer graph.
    static let requests = """
        <section aria-labelledby="transfer-heading">
        <h2 id="transfer-heading">Transfer in the last hour</h2>
        <p class="legend"><span class="up">■ up (device → server)</span> <span class="down">■ down (server → device)</span></p>
        {{#transfers}}
        <figure>
        <figcaption>{{device}}: {{recordsUp}} records and {{bytesUp}} up, {{recordsDown}} records and {{bytesDown}} down</figcaption>
        {{{svg}}}
        </figure>
        {{/transfers}}
        {{^transfers}}<p>No device sent anything in the last hour.</p>{{/transfers}}
        </section>
        <h2>Requests</h2>
        <form method="get" action="/console/requests" class="filters" role="search" aria-label="Filter requests">
        <label for="f-user">User</label><input id="f-user" name="user" value="{{user}}">
        <label for="f-status">Status</label><input id="f-status" name="status" value="{{status}}" placeholder="5xx, 404…">
        <label for="f-route">Route</label><input id="f-route" name="route" value="{{route}}">
        <label for="f-ms">Slower than (ms)</label><input id="f-ms" name="min_ms" inputmode="decimal" value="{{minMs}}">
        <button type="submit">Filter</button>
        </form>
        <table>
        <caption>{{shown}} most recent matching requests</caption>
        <thead><tr><th scope="col">Time</th><th scope="col">User</th><th scope="col">Device</th><th scope="col">Method</th><th scope="col">Route</th><th scope="col">Status</th><th scope="col">ms</th><th scope="col">Bytes up/down</th><th scope="col">Records up/down</th></tr></thead>
        <tbody>
        {{#entries}}
        <tr><td>{{time}}</td><td>{{user}}</td><td>{{device}}</td><td>{{method}}</td><td title="{{path}}">{{route}}</td><td>{{status}}</td><td>{{ms}}</td><td>{{bytesUp}} / {{bytesDown}}</td><td>{{recordsUp}} / {{recordsDown}}</td></tr>
        {{/entries}}
        {{^entries}}<tr><td colspan="9">No requests match.</td></tr>{{/entries}}
        </tbody>
        </table>
        """

    /// `/console/audit`.
    static let audit = """
        <table>
        <thead><tr><th scope="col">Time</th><th scope="col">Administrator</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Detail</th></tr></thead>
        <tbody>
        {{#entries}}<tr><td>{{time}}</td><td>{{administrator}}</td><td>{{action}}</td><td>{{target}}</td><td>{{detail}}</td></tr>{{/entries}}
        {{^entries}}<tr><td colspan="5">No actions yet.</td></tr>{{/entries}}
        </tbody>
        </table>
        """
}
