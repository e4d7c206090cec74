"""Three `hardtack gateway` instances on one PostgreSQL store behind Debian's nginx (round robin, no sticky
sessions), with two users in two headless Chromiums: one refresh per token generation whatever instance each
call lands on, an instance killed during a refresh burst, a back-channel logout that ends a user's session on
every instance (and its replay refused on every instance), an operator's revoke, PostgreSQL stopped and
started again, and a dump of the database that holds no token."""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from conftest import CLIENT_ID, ROOT, Gateway, chromium, free_port, quit_chromium
from test_gateway_browser import page_call, sign_in


def pg_program(name):
    versions = sorted(os.listdir("/usr/lib/postgresql"), key=lambda v: int(v) if v.isdigit() else 0)
    return "/usr/lib/postgresql/%s/bin/%s" % (versions[-1], name)


def as_owner(arguments):
    """A server program as the data's owner: `postgres` when we are root (Tools/postgres does the same)."""
    return (["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []) + arguments


class OwnPostgreSQL:
    """A PostgreSQL server of this module's own (Tools/postgres start), which a test may stop and start."""

    def __init__(self):
        self.parent = tempfile.mkdtemp(prefix="hardtack-cluster-pg.")
        os.chmod(self.parent, 0o755)
        started = subprocess.run(
            [os.path.join(ROOT, "Tools", "postgres"), "start"], capture_output=True, text=True, timeout=120,
            env=dict(os.environ, TMPDIR=self.parent))
        assert started.returncode == 0, started.stderr
        self.uri = started.stdout.strip()
        self.directory = re.search(r"server in (\S+)", started.stderr).group(1)
        self.port = urllib.parse.urlsplit(self.uri).port
        # What every instance opens the store with: the URI from a private file (no password on a command
        # line), and one key file.
        self.keys = tempfile.mkdtemp(prefix="hardtack-cluster-keys.")
        self.store_file = os.path.join(self.keys, "store-uri")
        with open(os.open(self.store_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(self.uri + "\n")
        self.key = os.path.join(self.keys, "store.key")
        with open(os.open(self.key, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as f:
            f.write(os.urandom(32))
        self.store = ["--store-file", self.store_file, "--key-file", self.key]

    def stop(self):
        subprocess.run(as_owner([pg_program("pg_ctl"), "-D", self.directory + "/data", "-m", "fast", "-w", "-t", "30",
                                 "stop"]), check=True, capture_output=True, timeout=60)

    def start(self):
        subprocess.run(as_owner([pg_program("pg_ctl"), "-D", self.directory + "/data", "-l",
                                 self.directory + "/server.log", "-w", "-t", "60", "-o", "-p %d" % self.port, "start"]),
                       check=True, capture_output=True, timeout=90)

    def dump(self):
        return subprocess.run([pg_program("pg_dump"), "--dbname", self.uri], check=True, capture_output=True,
                              timeout=60).stdout

    def close(self):
        subprocess.run([os.path.join(ROOT, "Tools", "postgres"), "stop", self.directory], capture_output=True, timeout=60)
        shutil.rmtree(self.parent, ignore_errors=True)
        shutil.rmtree(self.keys, ignore_errors=True)


class Nginx:
    """Debian's nginx on a free port of 127.0.0.1, round robin over `ports`, no stickiness; its access log
    names the instance that answered each request."""

    def __init__(self, directory, port, ports):
        self.directory, self.port = directory, port
        self.access = os.path.join(directory, "access.log")
        upstreams = "".join("    server 127.0.0.1:%d max_fails=0;\n" % p for p in ports)
        temporary = "".join("  %s_temp_path %s/%s;\n" % (kind, directory, kind)
                            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        configuration = os.path.join(directory, "nginx.conf")
        # As root, nginx's workers would run as nobody, who cannot enter this 0700 directory.
        user = "user root;\n" if os.getuid() == 0 else ""
        with open(configuration, "w") as f:
            f.write(user + """worker_processes 1;
error_log %(d)s/error.log;
pid %(d)s/nginx.pid;
events { worker_connections 512; }
http {
%(temporary)s  log_format upstream '$upstream_addr $status $request_uri';
  access_log %(access)s upstream;
  upstream gateways {
%(upstreams)s    keepalive 16;
  }
  server {
    listen 127.0.0.1:%(port)d;
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
      proxy_buffering off;
    }
  }
}
""" % {"d": directory, "temporary": temporary, "access": self.access, "upstreams": upstreams, "port": port})
        self.process = subprocess.Popen(
            [shutil.which("nginx") or "/usr/sbin/nginx", "-c", configuration, "-p", directory, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60  # only against a hang: a busy machine may take seconds
        while not os.path.exists(os.path.join(directory, "nginx.pid")):
            assert self.process.poll() is None and time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.05)

    def upstreams(self, since=0):
        """The instance (port) that answered each request logged after line `since`."""
        with open(self.access) as f:
            lines = f.read().splitlines()[since:]
        return [line.split(" ")[0].split(",")[-1].strip().rsplit(":", 1)[-1] for line in lines]

    def lines(self):
        with open(self.access) as f:
            return len(f.read().splitlines())

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=20)


class Cluster:
    """Three gateways on one PostgreSQL store (one key file), behind nginx, whose origin the browsers see; they
    revoke at the issuer the sessions that end without their cookie (`--revoke-ended-sessions`)."""

    OPTIONS = ["--revoke-ended-sessions"]

    def __init__(self, executable, provider, postgres, directory):
        self.executable, self.provider, self.directory = executable, provider, directory
        self.port = free_port()
        self.origin = "http://127.0.0.1:%d" % self.port
        self.store = postgres.store
        self.gateways = [Gateway(executable, provider, directory, store=self.store, origin=self.origin,
                                 extra=self.OPTIONS).start() for _ in range(3)]
        self.nginx = Nginx(directory, self.port, [g.port for g in self.gateways])

    def restart(self, index):
        old = self.gateways[index]
        self.gateways[index] = Gateway(self.executable, self.provider, self.directory, port=old.port, store=self.store,
                                       origin=self.origin, extra=self.OPTIONS).start()

    def hardtack(self, *arguments):
        return subprocess.run([self.executable, "gateway", *arguments, *self.store], capture_output=True, text=True,
                              timeout=60)

    def close(self):
        self.nginx.close()
        for gateway in self.gateways:
            if gateway.process.poll() is None:
                gateway.stop()


@pytest.fixture(scope="module")
def postgres():
    server = OwnPostgreSQL()
    yield server
    server.close()


@pytest.fixture
def cluster(executable, provider, postgres, workdir):
    provider.control("/test/backchannel-uri", client_id=CLIENT_ID, uri="")
    started = Cluster(executable, provider, postgres, workdir)
    yield started
    started.close()
    provider.control("/test/token-endpoint", delay_ms="0", fail="none")
    provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="default")
    provider.control("/test/backchannel-uri", client_id=CLIENT_ID, uri="")


@pytest.fixture
def second_browser():
    driver = chromium()
    yield driver
    quit_chromium(driver)


def calls(browser, count, path="/api/echo/n"):
    """`count` calls at once from the page (the browser runs six at a time per origin): their statuses."""
    return browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "Promise.all(Array.from({length: arguments[0]}, (_, i) => window.hardtack.gateway(arguments[1] + i)))"
        ".then((a) => done(a.map((x) => x.status)), (e) => done(String(e)));", count, path)


def test_thirty_calls_after_expiry_across_three_instances_share_one_refresh(browser, second_browser, cluster, provider):
    # The signed-in tokens live 4 s, the refreshed ones long: however slowly the 30 calls go (the browser sends six
    # at a time), the next generation outlives them.
    provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="4")
    sign_in(browser, cluster)
    sign_in(second_browser, cluster, user="bob", password="builder")
    provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="default")
    provider.control("/test/token-endpoint", delay_ms="800")
    time.sleep(4.5)
    refreshes, reuse, logged = provider.refreshes(), provider.state()["reuse_detections"], cluster.nginx.lines()
    assert calls(browser, 30) == [200] * 30
    assert provider.refreshes() == refreshes + 1, "one refresh for the generation, whatever instance each call reached"
    assert provider.state()["reuse_detections"] == reuse
    answered = cluster.nginx.upstreams(since=logged)
    assert len(set(answered)) == 3, "the calls were spread over every instance: %s" % answered
    # The other user's session is untouched: one refresh of its own when its calls come.
    assert calls(second_browser, 6) == [200] * 6
    assert provider.refreshes() == refreshes + 2
    assert provider.state()["reuse_detections"] == reuse


def test_an_instance_killed_during_a_refresh_burst_holds_no_one_back(browser, second_browser, cluster, provider):
    provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="4")
    sign_in(browser, cluster)
    sign_in(second_browser, cluster, user="bob", password="builder")
    provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="default")
    provider.control("/test/token-endpoint", delay_ms="2000")
    time.sleep(4.5)
    reuse, refreshes = provider.state()["reuse_detections"], provider.refreshes()
    browser.execute_script(
        "window.burst = null; Promise.all(Array.from({length: 30}, (_, i) => window.hardtack.gateway('/api/echo/k' + i)))"
        ".then((a) => { window.burst = a.map((x) => x.status); });")
    # The burst's refresh is at the (slowed) token endpoint by now: the kill lands while it is claimed.
    time.sleep(1.0)
    victim = cluster.gateways[0]
    victim.process.send_signal(signal.SIGKILL)
    victim.process.wait(timeout=10)
    WebDriverWait(browser, 60).until(lambda driver: driver.execute_script("return window.burst"))
    provider.control("/test/token-endpoint", delay_ms="0")
    # Every later call is served (or, if the kill cost the token, the session ended cleanly: all 401).
    later = calls(browser, 12, "/api/echo/later")
    assert later == [200] * 12 or later == [401] * 12, later
    assert provider.refreshes() > refreshes, "the burst refreshed (the kill came during it, not before)"
    if later == [200] * 12:
        assert provider.state()["reuse_detections"] == reuse, "no reuse unless the kill cost a token"
    assert calls(second_browser, 6) == [200] * 6, "the other user is untouched"
    cluster.restart(0)
    assert calls(second_browser, 6) == [200] * 6


def test_a_back_channel_logout_ends_a_session_on_every_instance_and_its_replay_is_refused(
        browser, second_browser, cluster, provider):
    sign_in(browser, cluster)
    sign_in(second_browser, cluster, user="bob", password="builder")
    provider.control("/test/backchannel-uri", client_id=CLIENT_ID, uri=cluster.origin + "/bff/backchannel")
    revoked = provider.state()["revocations_by_client"].get(CLIENT_ID, 0)
    active = provider.state()["refresh_tokens"]["active"]
    listed = cluster.hardtack("sessions", "--user", "alice", "--json")
    assert listed.returncode == 0, listed.stderr
    alices = len(json.loads(listed.stdout)["sessions"])  # the earlier tests' sessions too: the store is shared
    assert alices >= 1
    # The provider ends its own session without revoking anything: the gateways revoke each of alice's sessions'
    # refresh tokens, and nothing else.
    ended = provider.control("/test/end-session", sub="alice", client_id=CLIENT_ID, revoke_tokens="no")
    assert ended["sent_to"] and ended["status"] == 200, ended
    # The logout is answered before its revocations are sent: they are looked for until they come (the bound only
    # against a hang, as a busy machine may take seconds).
    deadline = time.monotonic() + 60
    while provider.state()["revocations_by_client"].get(CLIENT_ID, 0) < revoked + alices:
        assert time.monotonic() < deadline, "the ended sessions' refresh tokens were not revoked"
        time.sleep(0.1)
    # Her current session's token among them (not only older ones): an active token is revoked. (A sweep may
    # also revoke a copy an earlier test's ended session left, so the count is at least hers.)
    assert provider.state()["refresh_tokens"]["active"] < active, "a current refresh token was revoked"
    logged = cluster.nginx.lines()
    assert calls(browser, 6) == [401] * 6, "ended on every instance"
    assert len(set(cluster.nginx.upstreams(since=logged))) == 3
    assert calls(second_browser, 6) == [200] * 6, "the other user's session goes on"
    data = urllib.parse.urlencode({"logout_token": ended["logout_token"]}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    for gateway in cluster.gateways:
        assert gateway.request("POST", "/bff/backchannel", headers, data)[0] == 400, "a replay, whatever instance"


def test_an_operator_revokes_a_session_that_every_instance_then_refuses(browser, second_browser, cluster):
    sign_in(browser, cluster)
    sign_in(second_browser, cluster, user="bob", password="builder")
    sid = page_call(browser, "/bff/user")[1]["sid"]
    listed = cluster.hardtack("sessions", "--user", "alice")
    assert listed.returncode == 0 and sid in listed.stdout, listed.stderr
    revoked = cluster.hardtack("revoke", "--session", sid)
    assert revoked.returncode == 0 and revoked.stdout == "ended 1 session\n", revoked.stderr
    assert calls(browser, 6) == [401] * 6
    assert calls(second_browser, 6) == [200] * 6


def test_postgresql_stopped_is_503_and_started_again_brings_every_session_back(browser, cluster, postgres):
    sign_in(browser, cluster)
    postgres.stop()
    try:
        for gateway in cluster.gateways:
            assert gateway.request("GET", "/healthz")[0] == 503
        assert set(calls(browser, 6)) == {503}
    finally:
        postgres.start()
    deadline = time.monotonic() + 30
    while any(g.request("GET", "/healthz")[0] != 200 for g in cluster.gateways):
        assert time.monotonic() < deadline, "the instances did not see PostgreSQL again"
        time.sleep(0.5)
    assert calls(browser, 6) == [200] * 6


def test_a_dump_of_the_database_holds_no_token(browser, cluster, postgres, provider):
    sign_in(browser, cluster)
    assert calls(browser, 3) == [200] * 3
    dump = postgres.dump()
    tokens = provider.issued_tokens()
    assert tokens and len(dump) > 1000
    for token in tokens:
        assert token.encode() not in dump


def test_every_instance_follows_the_issuers_key_rotation(browser, second_browser, cluster, provider):
    sign_in(browser, cluster)
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    # Every instance caches the key set first (a logout token for a user with no session: 200, nothing ended).
    for gateway in cluster.gateways:
        token = provider.control("/test/logout-token", sub="nobody-signed-in")["logout_token"]
        data = urllib.parse.urlencode({"logout_token": token}).encode()
        assert gateway.request("POST", "/bff/backchannel", headers, data)[0] == 200
    rotated = provider.control("/test/rotate-keys")
    assert len(rotated["published"]) == 2
    # Bob's ID token is signed with the new key: the instance that takes his callback fetches the set again.
    sign_in(second_browser, cluster, user="bob", password="builder")
    provider.control("/test/backchannel-uri", client_id=CLIENT_ID, uri=cluster.origin + "/bff/backchannel")
    ended = provider.control("/test/end-session", sub="alice", client_id=CLIENT_ID)
    assert ended["status"] == 200, ended
    assert calls(browser, 6) == [401] * 6
    assert calls(second_browser, 6) == [200] * 6
    # A logout token under the new key, posted to each instance itself: each fetches the set again and verifies it.
    for gateway in cluster.gateways:
        token = provider.control("/test/logout-token", sub="bob")["logout_token"]
        data = urllib.parse.urlencode({"logout_token": token}).encode()
        assert gateway.request("POST", "/bff/backchannel", headers, data)[0] == 200
    assert calls(second_browser, 6) == [401] * 6
