extension ConsoleTemplates {
    /// `/console`: counts and the last hour's sparklines.
    static let overview = """
        <section aria-labelledby="counts-heading">
        <h2 id="counts-heading">Now</h2>
        <dl class="counts">
        {{#counts}}<div><dt>{{label}}</dt><dd data-count="{{key}}">{{value}}</dd></div>{{/counts}}
        </dl>
        </section>
        <section aria-labelledby="hour-heading">
        <h2 id="hour-heading">The last hour</h2>
        <div class="sparks">
        {{#sparklines}}
        <figure>
        <figcaption>{{label}}: <strong>{{latest}}</strong> now, {{peak}} at most</figcaption>
        {{{svg}}}
        </figure>
        {{/sparklines}}
        </div>
        </section>
        <h2>Changes as they happen</h2>
        <ul id="events" class="events" aria-label="Recent changes"></ul>
        """
}
