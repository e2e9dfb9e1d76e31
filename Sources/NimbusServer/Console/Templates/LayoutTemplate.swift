extension ConsoleTemplates {
    /// The frame of every page: skip link, navigation, the page, the live-update script.
    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Nimbus Console</title>
        <link rel="stylesheet" href="/console/console.css">
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        {{#signedIn}}
        <header>
        <nav aria-label="Console">
        <span class="brand">Nimbus Console</span>
        <ul>
        {{#nav}}<li><a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a></li>{{/nav}}
        </ul>
        <form method="post" action="/console/logout" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <span class="who">{{administrator}}</span>
        <button type="submit">Sign out</button>
        </form>
        </nav>
        <p id="live" class="live" role="status" aria-live="polite">Live updates: connecting…</p>
        </header>
        {{/signedIn}}
        <main id="main" tabindex="-1">
        <h1>{{title}}</h1>
        {{{content}}}
        </main>
        {{#signedIn}}<script src="/console/live.js" defer></script>{{/signedIn}}
        </body>
        </html>
        """

    /// A short message (errors, "not available").
    static let message = """
        <p class="{{kind}}">{{text}}</p>
        {{#back}}<p><a href="{{back}}">Back</a></p>{{/back}}
        """

    /// The confirmation of an administrator action: what will happen, and a form that does it.
    static let confirm = """
        <p class="warning">{{question}}</p>
        <form method="post" action="{{action}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="confirm" value="yes">
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/fields}}
        <button type="submit" class="danger">{{button}}</button>
        <a href="{{cancel}}">Cancel</a>
        </form>
        """
}
