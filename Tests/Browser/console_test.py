#!/usr/bin/env python3
"""The Nimbus Console in a real browser (headless Chromium, driven by Playwright).

Starts `nimbus serve` on a fresh data folder holding hostile record contents, signs in as
an administrator, opens every page (saving a screenshot of each under docs/console/),
filters the record browser, revokes a token with its confirmation, watches a live update,
and checks labels, keyboard focus and that no hostile content runs. Prints
`N passed, N failed` and exits non-zero on any failure.

Usage: console_test.py NIMBUS_BINARY SCREENSHOT_DIR
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from playwright.sync_api import sync_playwright, expect

NIMBUS = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/nimbus")
SHOTS = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "docs/console")
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & \'quoted\' "double"'

results = []


def check(name, condition, detail=""):
    results.append((name, bool(condition)))
    print(("✔ " if condition else "✘ ") + name + ("" if condition else f": {detail}"), flush=True)


def nimbus(*args):
    return subprocess.run([NIMBUS, *args], check=True, capture_output=True, text=True, timeout=60).stdout.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(base, token, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def field(value, kind="string", t=1):
    return {"value": {"type": kind, "value": value}, "stamp": {"time": t, "device": "seed"}}


def main():
    data = tempfile.mkdtemp(prefix="nimbus-console-browser-")
    os.makedirs(SHOTS, exist_ok=True)
    nimbus("users", "add", "root", "--admin", "--data-dir", data)
    nimbus("users", "add", "alice", "--data-dir", data)
    nimbus("users", "add", "bob", "--data-dir", data)
    root = nimbus("tokens", "create", "--user", "root", "--device", "console", "--data-dir", data)
    alice = nimbus("tokens", "create", "--user", "alice", "--device", "alice-phone", "--data-dir", data)
    alice_laptop = nimbus("tokens", "create", "--user", "alice", "--device", "alice-laptop", "--data-dir", data)
    bob = nimbus("tokens", "create", "--user", "bob", "--device", "bob-phone", "--data-dir", data)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([NIMBUS, "serve", "--data-dir", data, "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                urllib.request.urlopen(base + "/health", timeout=2)
                break
            except Exception:
                time.sleep(0.2)
        db = "/v1/containers/app/databases/private"
        api(base, alice, "PUT", db + "/zones/notes")
        saves = []
        for i in range(120):
            kind = "Post" if i % 3 else "Tag"
            saves.append({"recordName": f"note-{i:03d}", "recordType": kind, "fields": {
                "title": field(f"Note {i}"), "rank": field(i % 7, "int64"), "done": field(i % 2 == 0, "bool")}})
        saves.append({"recordName": "hostile", "recordType": "Post", "fields": {
            "title": field(HOSTILE), "rank": field(3, "int64"), "parent": field({"recordName": "note-001", "action": "none"}, "reference")}})
        status, body = api(base, alice, "POST", db + "/zones/notes/records/modify", {"saves": saves, "savePolicy": "changedKeys"})
        check("seed: 121 records saved", status == 200, f"{status} {body[:300]}")
        status, body = api(base, alice, "PUT", db + "/zones/notes/share", {"participants": [{"userName": "bob", "permission": "readWrite"}]})
        check("seed: zone shared with bob", status in (200, 201), f"{status} {body[:300]}")
        api(base, alice_laptop, "POST", db + "/zones/notes/changes", {})
        api(base, bob, "GET", "/v1/containers/app/databases/shared/zones")

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("dialog", lambda dialog: (check("no dialog opened by record contents", False, dialog.message), dialog.dismiss()))

            # Signed out, every page leads to the sign-in page.
            page.goto(base + "/console/users")
            check("signed out: redirected to the sign-in page", page.url.endswith("/console/login"), page.url)
            page.screenshot(path=os.path.join(SHOTS, "login.png"))

            # A normal user's token does not open it.
            page.fill("#token", alice)
            page.press("#token", "Enter")
            page.wait_for_load_state()
            check("a normal user's token is refused", "not valid, or not an administrator" in page.content())

            page.fill("#token", root)
            page.keyboard.press("Enter")
            page.wait_for_url(base + "/console")
            check("administrator signed in", page.locator("h1").inner_text() == "Overview")
            cookies = {c["name"]: c for c in page.context.cookies()}
            session = cookies.get("nimbus_console", {})
            check("session cookie is HttpOnly and SameSite=Strict", session.get("httpOnly") and session.get("sameSite") == "Strict", session)
            expect(page.locator("#live")).to_have_text(re.compile("Live updates: on"), timeout=10000)
            check("live updates connected", True)

            # Live update: a record saved through the API changes the overview's count.
            before = page.locator('[data-count="records"]').inner_text()
            api(base, alice, "POST", db + "/zones/notes/records/modify", {"saves": [{"recordName": "live", "recordType": "Post", "fields": {"title": field("arrived live")}}]})
            expect(page.locator('[data-count="records"]')).not_to_have_text(before, timeout=10000)
            check("live update: the record count changed without a reload", page.locator('[data-count="records"]').inner_text() == str(int(before) + 1))
            expect(page.locator("#events li").first).to_contain_text("app/notes", timeout=5000)
            check("live update: the change is listed", True)
            page.screenshot(path=os.path.join(SHOTS, "overview.png"), full_page=True)

            # Keyboard navigation: Tab reaches the skip link first, then the navigation.
            page.keyboard.press("Tab")
            check("keyboard: the first Tab focuses the skip link", page.evaluate("document.activeElement.textContent") == "Skip to content")
            page.keyboard.press("Tab")
            check("keyboard: the next Tab reaches the navigation", page.evaluate("document.activeElement.getAttribute('href')") == "/console")

            pages = {
                "users": "/console/users", "shares": "/console/shares", "requests": "/console/requests",
                "audit": "/console/audit", "public-zones": "/console/zones",
            }
            for name, path in pages.items():
                response = page.goto(base + path)
                check(f"page {path} opens", response.status == 200, response.status)
                page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)

            page.goto(base + "/console/users")
            page.click("text=alice")
            check("user page shows devices", page.locator("text=alice-phone").count() > 0 and page.locator("text=alice-laptop").count() > 0)
            page.screenshot(path=os.path.join(SHOTS, "user.png"), full_page=True)
            user_url = page.url

            # Zones → record browser, filtered.
            page.click("table >> text=notes")
            check("record browser opens", page.locator("h1").inner_text() == "Records of notes")
            page.select_option("#type", "Tag")
            page.fill("#field", "rank")
            page.fill("#value", "3")
            page.select_option("#sort", "-name")
            page.click("button:has-text('Filter')")
            page.wait_for_load_state()
            names = page.locator("tbody tr td:first-child a").all_inner_texts()
            expected = sorted([f"note-{i:03d}" for i in range(120) if i % 3 == 0 and i % 7 == 3], reverse=True)
            check("record browser: filtered by type and field, sorted descending", names == expected, f"{names} != {expected}")
            page.screenshot(path=os.path.join(SHOTS, "records.png"), full_page=True)

            page.goto(page.url.split("?")[0])
            page.click("a[rel=next]")
            check("record browser: the next page starts after the first", page.locator("tbody tr td:first-child a").first.inner_text() == "note-048")
            page.goto(page.url.split("?")[0] + "?field=title&value=" + urllib.parse.quote(HOSTILE))
            page.click("text=hostile")
            check("hostile record: title shown as text", HOSTILE in page.locator("main").inner_text())
            check("hostile record: no script ran", page.evaluate("window.pwned === undefined"))
            check("hostile record: reference is a link", page.locator("a:has-text('note-001')").count() == 1)
            page.screenshot(path=os.path.join(SHOTS, "record.png"), full_page=True)
            page.click("text=notes")
            page.click("text=Schema")
            check("schema page lists value types", page.locator("text=int64").count() > 0 and page.locator("text=reference").count() > 0)
            page.screenshot(path=os.path.join(SHOTS, "schema.png"), full_page=True)

            # Accessibility: every visible control has a label; text contrast.
            for path in ["/console", "/console/requests", user_url.replace(base, "")]:
                page.goto(base + path)
                unlabeled = page.evaluate("""() => [...document.querySelectorAll('input:not([type=hidden]), select, button')]
                    .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim()).length""")
                check(f"every control on {path} has a label", unlabeled == 0, unlabeled)
            low = page.evaluate("""() => {
                const lum = c => { const v = c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map(x => x / 255).map(x => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4)); return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
                const bg = e => { while (e) { const c = getComputedStyle(e).backgroundColor; if (c && !c.startsWith('rgba(0, 0, 0, 0)')) return c; e = e.parentElement; } return 'rgb(255, 255, 255)'; };
                return [...document.querySelectorAll('a, td, th, dt, dd, label, button, p, figcaption')].filter(e => e.textContent.trim()).map(e => {
                    const a = lum(getComputedStyle(e).color), b = lum(bg(e)); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }).filter(r => r < 4.5).length; }""")
            check("text contrast is at least 4.5:1 everywhere on the user page", low == 0, low)

            # Revoke alice's laptop token, with its confirmation.
            page.goto(user_url)
            page.click("button[aria-label*='alice-laptop']")
            check("revoke asks for confirmation", "Revoke token" in page.locator("main").inner_text())
            page.screenshot(path=os.path.join(SHOTS, "confirm-revoke.png"), full_page=True)
            status, _ = api(base, alice_laptop, "GET", db + "/zones")
            check("before confirming, the token still works", status == 200, status)
            page.click("button:has-text('Revoke token')")
            page.wait_for_url(user_url)
            status, _ = api(base, alice_laptop, "GET", db + "/zones")
            check("after confirming, the token is refused", status == 401, status)
            page.goto(base + "/console/audit")
            check("the audit log records the revocation", page.locator("td:has-text('revoke token')").count() == 1)
            page.screenshot(path=os.path.join(SHOTS, "audit.png"), full_page=True)

            page.goto(base + "/console/requests?user=alice")
            check("request log filtered by user", page.locator("tbody tr").count() > 0 and page.locator("td:has-text('bob')").count() == 0)
            check("transfer graph drawn", page.locator("figure svg").count() > 0)
            page.screenshot(path=os.path.join(SHOTS, "requests.png"), full_page=True)

            page.click("button:has-text('Sign out')")
            page.wait_for_url(base + "/console/login")
            page.goto(base + "/console")
            check("signed out: the console is closed again", page.url.endswith("/console/login"))
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
