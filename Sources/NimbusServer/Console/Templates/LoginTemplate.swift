extension ConsoleTemplates {
    /// `/console/login`: a token of an administrator.
    static let login = """
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/console/login" class="login">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="token">Administrator token</label>
        <input id="token" name="token" type="password" autocomplete="off" required autofocus>
        <p class="hint">A token of an administrator: <code>nimbus users add NAME --admin</code>, then <code>nimbus tokens create --user NAME --device console</code>.</p>
        <button type="submit">Sign in</button>
        </form>
        """
}
