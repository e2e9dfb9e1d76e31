/// The console's stylesheet and its one script, served by the binary (no CDN, no build step).
enum ConsoleStatic {
    /// Colours chosen for contrast of at least 7:1 for text on its background (WCAG AAA).
    static let css = """
        :root { color-scheme: light; --ink: #111; --muted: #444; --link: #0b3d91; --line: #bbb; --up: #0b5fa5; --down: #a33b00; --bad: #8b0000; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fff; }
        a { color: var(--link); }
        a:focus, button:focus, input:focus, select:focus, main:focus { outline: 3px solid #1a73e8; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5em; }
        .skip:focus { left: .5em; }
        header { border-bottom: 1px solid var(--line); padding: .5em 1em; background: #f4f6f8; }
        nav { display: flex; flex-wrap: wrap; gap: 1em; align-items: center; }
        nav ul { display: flex; flex-wrap: wrap; gap: .75em; list-style: none; margin: 0; padding: 0; }
        nav a[aria-current] { font-weight: 700; text-decoration: none; border-bottom: 3px solid var(--link); }
        .brand { font-weight: 700; }
        .who { color: var(--muted); margin-right: .5em; }
        .live { margin: .25em 0 0; color: var(--muted); font-size: 13px; }
        main { padding: 1em 1.5em 3em; max-width: 1200px; }
        h1 { margin-top: .2em; font-size: 1.6em; }
        table { border-collapse: collapse; width: 100%; margin: .5em 0 1.5em; }
        caption { text-align: left; font-weight: 600; padding: .25em 0; }
        th, td { border-bottom: 1px solid var(--line); padding: .35em .5em; text-align: left; vertical-align: top; }
        td.summary, .value { white-space: pre-wrap; word-break: break-word; }
        .counts, .facts { display: flex; flex-wrap: wrap; gap: 1em; margin: 0; }
        .counts div, .facts div { border: 1px solid var(--line); padding: .5em 1em; border-radius: 4px; min-width: 9em; }
        dt { color: var(--muted); font-size: 13px; }
        dd { margin: 0; font-size: 1.3em; font-weight: 600; }
        .sparks { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 1em; }
        figure { margin: 0 0 1em; }
        figcaption { font-size: 13px; color: var(--muted); }
        svg { display: block; max-width: 100%; }
        .filters { display: flex; flex-wrap: wrap; gap: .5em; align-items: center; margin-bottom: 1em; }
        .stack { margin: .5em 0 1em; display: flex; gap: .5em; align-items: center; flex-wrap: wrap; }
        .inline { display: inline; }
        input, select, button { font: inherit; padding: .3em .5em; border: 1px solid #555; border-radius: 3px; background: #fff; color: var(--ink); }
        button { background: #e8edf3; cursor: pointer; }
        button.danger { background: #fbe9e7; border-color: var(--bad); color: var(--bad); }
        .error, .warning { color: var(--bad); font-weight: 600; }
        .hint { color: var(--muted); font-size: 13px; }
        .legend .up { color: var(--up); } .legend .down { color: var(--down); }
        .login { display: flex; flex-direction: column; gap: .5em; max-width: 28em; }
        .pager { display: flex; gap: 1em; }
        .events { font-size: 13px; }
        ul.plain { list-style: none; margin: 0; padding: 0; }
        """

    /// Live updates: listens to `/console/events` and updates the overview's counts and the
    /// status line. Pages work without it.
    static let script = """
        (function () {
          var status = document.getElementById('live');
          if (!window.EventSource || !status) { return; }
          var source = new EventSource('/console/events');
          source.addEventListener('hello', function () { status.textContent = 'Live updates: on'; });
          source.addEventListener('change', function (message) {
            var data = JSON.parse(message.data);
            status.textContent = 'Live updates: on; last change in ' + data.zone + ' at ' + new Date().toLocaleTimeString();
            Object.keys(data.counts || {}).forEach(function (key) {
              var cell = document.querySelector('[data-count="' + key + '"]');
              if (cell) { cell.textContent = data.counts[key]; }
            });
            var list = document.getElementById('events');
            if (list) {
              var item = document.createElement('li');
              item.textContent = new Date().toLocaleTimeString() + ': ' + data.zone + (data.deleted ? ' (deleted)' : ' changed');
              list.insertBefore(item, list.firstChild);
              while (list.children.length > 20) { list.removeChild(list.lastChild); }
            }
          });
          source.onerror = function () { status.textContent = 'Live updates: reconnecting…'; };
        })();
        """
}
