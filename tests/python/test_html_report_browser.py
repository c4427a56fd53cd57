"""The `--html` scan report of the example dataset, opened in a real browser (headless Chromium,
Debian's `chromium` package) through the DevTools protocol: it renders without console errors or
page exceptions, and the findings, the class histogram and the per-file findings are on screen.

The screenshot it takes is the one docs/guide/scanning.md shows: `make docs-screenshot` runs this
test with LABELGUARD_SCREENSHOT=docs/img/html-report.png to regenerate it. Without a `chromium`
on PATH (or $CHROMIUM) the test is skipped, saying so, except in CI, which installs it
(.ci/run) and where it fails instead.
"""

import base64
import json
import os
import pathlib
import shutil
import subprocess
import time

import pytest

# Needs Chromium and the DevTools client: in `make test`, not in the fast lane.
pytestmark = pytest.mark.slow

websockets_sync = pytest.importorskip("websockets.sync.client")

ROOT = pathlib.Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 1200, 1500


def chromium() -> str:
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        why = "no chromium on PATH (apt-get install chromium); the HTML report was not opened"
        if os.environ.get("LABELGUARD_CI_IN_PLACE"):
            pytest.fail(why + ": CI (.ci/run) installs it")
        pytest.skip(why)
    return exe


class DevTools:
    """A minimal DevTools-protocol client over one page's websocket: commands and their events."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events = []

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=30))
            if msg.get("id") == self.next_id:
                assert "error" not in msg, (method, msg["error"])
                return msg["result"]
            self.events.append(msg)

    def wait_for(self, method: str, timeout: float = 30):
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method for e in self.events):
            left = deadline - time.monotonic()
            assert left > 0, f"no {method} within {timeout} s"
            self.events.append(json.loads(self.ws.recv(timeout=left)))


def start_browser(exe: str, profile: pathlib.Path):
    proc = subprocess.Popen(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--remote-debugging-port=0", f"--user-data-dir={profile}",
         f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 30
    while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"chromium did not start its DevTools endpoint (exit {proc.poll()})")
        time.sleep(0.1)
    port = port_file.read_text().split("\n")[0]
    return proc, int(port)


def page_websocket(port: int) -> str:
    import urllib.request

    deadline = time.monotonic() + 20
    while True:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
            pages = [t for t in json.load(r) if t.get("type") == "page"]
        if pages:
            return pages[0]["webSocketDebuggerUrl"]
        assert time.monotonic() < deadline, "chromium has no page"
        time.sleep(0.1)


# What must be on screen: each part's heading, and the part itself (an element of non-zero size
# inside the page, not hidden), for the first dataset of the report.
VISIBLE = """
(() => {
  const shown = (el) => {
    if (!el) return false;
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const after = (title, sel) => {
    const h = [...document.querySelectorAll('h2')].find(e => e.textContent.startsWith(title));
    let el = h && h.nextElementSibling;
    while (el && !el.matches(sel) && el.tagName !== 'H2') el = el.nextElementSibling;
    return {heading: shown(h), part: !!el && el.matches(sel) && shown(el)};
  };
  return {
    findings: after('Findings by rule', 'table'),
    histogram: after('Class histogram', 'svg, figure, div'),
    files: after('Files with findings', 'details'),
    histogram_svg: shown(document.querySelector('svg[aria-label="class histogram"]')),
    finding_rows: document.querySelectorAll('h2 + table tr').length,
    file_entries: document.querySelectorAll('details').length,
  };
})()
"""


def example_report(labelguard, path: pathlib.Path) -> pathlib.Path:
    scan = subprocess.run(
        [labelguard, "scan", "examples/cityscapes-mini", "--preset", "cityscapes", "--html", str(path)],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert scan.returncode == 1, scan.stderr  # the example dataset has errors
    return path


def open_in_chromium(page: pathlib.Path, profile: pathlib.Path):
    """What is visible (VISIBLE's answer), the console errors and page exceptions, and a PNG."""
    proc, port = start_browser(chromium(), profile)
    try:
        with websockets_sync.connect(page_websocket(port), max_size=64 * 1024 * 1024, open_timeout=20) as ws:
            dt = DevTools(ws)
            dt.call("Runtime.enable")
            dt.call("Log.enable")
            dt.call("Page.enable")
            dt.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)
            dt.call("Page.navigate", url=page.as_uri())
            dt.wait_for("Page.loadEventFired")
            seen = dt.call("Runtime.evaluate", expression=VISIBLE, returnByValue=True)["result"]["value"]
            shot = base64.b64decode(dt.call("Page.captureScreenshot", format="png")["data"])
            errors = [
                e for e in dt.events
                if e.get("method") == "Runtime.exceptionThrown"
                or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
                or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
            ]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return seen, errors, shot


def test_the_html_report_renders_in_chromium_with_its_parts_visible(labelguard, tmp_path):
    report = example_report(labelguard, tmp_path / "report.html")
    seen, errors, shot = open_in_chromium(report, tmp_path / "profile")
    out = pathlib.Path(os.environ.get("LABELGUARD_SCREENSHOT") or tmp_path / "html-report.png")
    out.write_bytes(shot)
    assert errors == [], errors
    assert seen["findings"] == {"heading": True, "part": True}, seen
    assert seen["histogram"]["heading"] and seen["histogram_svg"], seen
    assert seen["files"] == {"heading": True, "part": True}, seen
    # The example's findings: one row per rule (LG101, LG105, ...) and one entry per file.
    assert seen["finding_rows"] >= 10 and seen["file_entries"] >= 13, seen
    # A real picture, of the window's size.
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 20_000
    assert int.from_bytes(shot[16:20], "big") == WIDTH and int.from_bytes(shot[20:24], "big") == HEIGHT


def test_the_browser_check_sees_a_console_error_and_a_hidden_part(labelguard, tmp_path):
    # The same report with a script that logs an error and a style that hides the tables: the
    # checks above would fail on it, so they are not vacuous.
    report = example_report(labelguard, tmp_path / "report.html")
    html = report.read_text()
    planted = "<style>table{display:none}</style><script>console.error('planted')</script>"
    report.write_text(html.replace("</head>", planted + "</head>", 1))
    seen, errors, _ = open_in_chromium(report, tmp_path / "profile")
    assert any("planted" in json.dumps(e) for e in errors), errors
    assert seen["findings"] == {"heading": True, "part": False}, seen
    assert seen["files"]["part"], seen
