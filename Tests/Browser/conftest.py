"""Fixtures of the real-browser tests of `hardtack gateway` (Tools/browser-tests runs them): the project's
Authlib provider (HARDTACK_TEST_AUTHLIB, started by Tools/oauth-server), the built `hardtack` executable,
gateways on free ports serving the demo app (Modules/DevelopmentComposition/GatewayApp), headless Chromium through Debian's
chromedriver, and another site's page for the cross-site attempts."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLIENT_ID, CLIENT_SECRET = "hardtack-gateway", "gateway-secret"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Provider:
    """The Authlib provider and its test controls."""

    def __init__(self, issuer):
        self.issuer = issuer

    def state(self):
        with urllib.request.urlopen(self.issuer + "/test/state", timeout=30) as answer:
            return json.load(answer)

    def control(self, path, **fields):
        data = urllib.parse.urlencode(fields).encode()
        with urllib.request.urlopen(urllib.request.Request(self.issuer + path, data=data), timeout=30) as answer:
            return json.loads(answer.read() or b"{}")

    def refreshes(self):
        return self.state().get("refreshes_by_client", {}).get(CLIENT_ID, 0)

    def issued_tokens(self):
        with urllib.request.urlopen(self.issuer + "/test/issued-tokens?client_id=" + CLIENT_ID, timeout=30) as answer:
            return json.load(answer)


class Gateway:
    """One `hardtack gateway` process on 127.0.0.1 serving the demo app, its store in `directory`."""

    def __init__(self, executable, provider, directory, port=None, store=None, origin=None, extra=()):
        """`store` is a list of store options (default: a SQLite file in `directory`); `origin` the public
        origin, when a proxy in front of it is what the browser sees; `extra` more options."""
        self.extra = list(extra)
        self.executable, self.provider, self.directory = executable, provider, directory
        self.port = port or free_port()
        self.origin = "http://127.0.0.1:%d" % self.port
        self.public_origin = origin or self.origin
        self.store = store or ["--store", os.path.join(directory, "store", "keychain.db")]
        self.process = None
        self.log = os.path.join(directory, "gateway-%d.log" % time.monotonic_ns())

    def start(self):
        secret = os.path.join(self.directory, "client-secret")
        if not os.path.exists(secret):
            with open(os.open(secret, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write(CLIENT_SECRET + "\n")
        arguments = [
            self.executable, "gateway", "--issuer", self.provider.issuer, "--client-id", CLIENT_ID,
            "--client-secret-file", secret, "--listen", "127.0.0.1:%d" % self.port, "--public-origin", self.public_origin,
            "--route", "/api/=%s/api/" % self.provider.issuer, "--static", os.path.join(ROOT, "Modules", "DevelopmentComposition", "GatewayApp"),
        ] + self.store + self.extra
        self.errors = open(self.log, "w")
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self.errors, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("listening on "), "the gateway did not start: " + open(self.log).read()
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            status = self.process.wait(timeout=20)
            self.errors.close()
            return status
        return None

    def request(self, method, path, headers=None, data=None):
        """A request outside the browser; (status, body)."""
        request = urllib.request.Request(self.origin + path, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()


@pytest.fixture(scope="session")
def provider():
    issuer = os.environ.get("HARDTACK_TEST_AUTHLIB")
    assert issuer, "HARDTACK_TEST_AUTHLIB is not set: run these with Tools/browser-tests, which starts the provider"
    return Provider(issuer)


@pytest.fixture(scope="session")
def executable():
    path = os.environ.get("HARDTACK_EXECUTABLE") or os.path.join(ROOT, ".build", "debug", "hardtack")
    assert os.access(path, os.X_OK), "no hardtack executable at %s: build it first (swift build)" % path
    return path


@pytest.fixture
def workdir():
    directory = tempfile.mkdtemp(prefix="hardtack-browser-")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def gateway(executable, provider, workdir):
    started = Gateway(executable, provider, workdir).start()
    yield started
    started.stop()


def chromium():
    """A headless Chromium through Debian's chromedriver; `quit_chromium` ends it. Chromium keeps its singleton
    socket in a directory of TMPDIR that it removes only on a clean exit, which chromedriver's quit is not: each is
    given a private TMPDIR, removed after it, so a run leaves nothing in /tmp."""
    scratch = tempfile.mkdtemp(prefix="hardtack-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--disable-features=Translate,OptimizationHints", "--window-size=1200,900"]:
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver",
                      env=dict(os.environ, TMPDIR=scratch))
    try:
        driver = webdriver.Chrome(options=options, service=service)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    driver.hardtack_scratch = scratch
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(60)
    return driver


def quit_chromium(driver):
    """Ends a browser from `chromium` and removes its private TMPDIR."""
    try:
        driver.quit()
    finally:
        shutil.rmtree(driver.hardtack_scratch, ignore_errors=True)


@pytest.fixture
def browser():
    driver = chromium()
    yield driver
    quit_chromium(driver)


class EvilSite:
    """Another site (localhost, not 127.0.0.1: another site to a browser) whose pages try to use the
    gateway from outside: a form posted to it, and fetches with and without the header."""

    def __init__(self, target):
        page = EVIL_PAGE.replace("TARGET", target)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = "http://localhost:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


EVIL_PAGE = """<!doctype html><html><body>
<form id="f" method="post" action="TARGET/api/echo/from-evil"><input name="x" value="1"></form>
<script>
window.results = {};
async function attempt(name, options) {
  try { const r = await fetch("TARGET/api/echo/" + name, options); window.results[name] = r.status; }
  catch (e) { window.results[name] = "blocked"; }
}
window.run = async () => {
  await attempt("plain", { credentials: "include" });
  await attempt("with-header", { credentials: "include", headers: { "X-CSRF": "1" } });
  await attempt("no-cors", { credentials: "include", mode: "no-cors", method: "POST", body: "x=1" });
  return window.results;
};
</script></body></html>"""


@pytest.fixture
def evil_site(gateway):
    site = EvilSite(gateway.origin)
    yield site
    site.close()
