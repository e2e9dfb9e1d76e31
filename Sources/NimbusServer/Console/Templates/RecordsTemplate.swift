extension ConsoleTemplates {
    /// `/console/zones/{id}/records`: the record browser.
    static let records = """
        <p class="crumbs"><a href="/console/users/{{ownerID}}">{{ownerName}}</a> › {{container}} › {{zoneName}} · <a href="/console/zones/{{zoneID}}/schema">Schema</a></p>
        <form method="get" action="/console/zones/{{zoneID}}/records" class="filters" role="search" aria-label="Filter records">
        <label for="type">Record type</label>
        <select id="type" name="type">
        <option value="">Any</option>
        {{#types}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/types}}
        </select>
        <label for="field">Field</label>
        <input id="field" name="field" value="{{field}}">
        <label for="value">equals</label>
        <input id="value" name="value" value="{{value}}">
        <label for="sort">Sort by</label>
        <select id="sort" name="sort">
        {{#sorts}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/sorts}}
        </select>
        <button type="submit">Filter</button>
        </form>
        <table>
        <caption>{{shown}} records on this page</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Modified</th><th scope="col">By device</th><th scope="col">Fields</th></tr></thead>
        <tbody>
        {{#rows}}
        <tr><td><a href="/console/zones/{{zoneID}}/record?name={{nameQuery}}">{{name}}</a></td><td>{{type}}</td><td>{{modified}}</td><td>{{device}}</td><td class="summary">{{summary}}</td></tr>
        {{/rows}}
        {{^rows}}<tr><td colspan="5">No records match.</td></tr>{{/rows}}
        </tbody>
        </table>
        <nav aria-label="Pages" class="pager">
        {{#first}}<a href="{{first}}">First page</a>{{/first}}
        {{#next}}<a href="{{next}}" rel="next">Next page</a>{{/next}}
        </nav>
        """

    /// `/console/zones/{id}/record?name=`: one record, its fields and stamps.
    static let record = """
        <p class="crumbs"><a href="/console/zones/{{zoneID}}/records">{{zoneName}}</a> › {{name}}</p>
        <dl class="facts">
        <div><dt>Type</dt><dd>{{type}}</dd></div>
        <div><dt>Change tag</dt><dd><code>{{changeTag}}</code></dd></div>
        <div><dt>Created</dt><dd>{{created}}</dd></div>
        <div><dt>Modified</dt><dd>{{modified}}</dd></div>
        <div><dt>Size</dt><dd>{{size}} bytes</dd></div>
        </dl>
        <table>
        <caption>Fields</caption>
        <thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Value</th><th scope="col">Stamp</th></tr></thead>
        <tbody>
        {{#fields}}
        <tr><th scope="row">{{name}}</th><td>{{type}}</td><td>
        {{#asset}}<a href="{{href}}" download>Download asset ({{size}} bytes, {{checksum}})</a>{{/asset}}
        {{#reference}}<a href="{{href}}">{{target}}</a> ({{action}}){{/reference}}
        {{#text}}<span class="value">{{text}}</span>{{/text}}
        </td><td>{{stamp}}</td></tr>
        {{/fields}}
        </tbody>
        </table>
        <p class="hint">The server keeps each record's latest state and a stamp per field (time and device of the last write); earlier values are not kept.</p>
        """

    /// `/console/zones/{id}/schema`.
    static let schema = """
        <p class="crumbs"><a href="/console/zones/{{zoneID}}/records">{{zoneName}}</a> › Schema</p>
        {{#types}}
        <table>
        <caption>{{recordType}} ({{records}} records)</caption>
        <thead><tr><th scope="col">Field</th><th scope="col">Value types</th></tr></thead>
        <tbody>
        {{#fields}}<tr><th scope="row">{{name}}</th><td>{{types}}</td></tr>{{/fields}}
        </tbody>
        </table>
        {{/types}}
        {{^types}}<p>No records yet.</p>{{/types}}
        """
}
