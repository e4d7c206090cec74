"""`hardtack gateway` in a real browser (headless Chromium): a user signs in through the provider's form,
the app calls the API through the gateway, and nothing a page of another site does reaches it."""

import os
import time
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from conftest import CLIENT_ID, Gateway


def sign_in(browser, gateway, user="alice", password="wonderland"):
    """Opens the app, follows its Sign in link to the provider's form, signs in, and waits to be back."""
    browser.get(gateway.origin + "/")
    browser.find_element(By.ID, "login").click()
    WebDriverWait(browser, 20).until(expected_conditions.presence_of_element_located((By.NAME, "password")))
    name = browser.find_element(By.NAME, "username")
    name.clear()
    name.send_keys(user)
    browser.find_element(By.NAME, "password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, 'button[value="approve"]').click()
    WebDriverWait(browser, 20).until(lambda driver: driver.current_url.startswith(gateway.origin))
    WebDriverWait(browser, 20).until(
        lambda driver: driver.find_element(By.ID, "status").text.startswith("Signed in"))


def page_call(browser, path, method="GET"):
    """The app's own call (fetch with X-CSRF: 1), from the page: (status, body)."""
    answer = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.hardtack.gateway(arguments[0], {method: arguments[1]}).then(done, (e) => done({status: -1, body: String(e)}));",
        path, method)
    return answer["status"], answer["body"]


def session_cookie(browser):
    return next((c for c in browser.get_cookies() if c["name"] == "__Host-hardtack"), None)


def test_sign_in_sets_a_host_cookie_the_page_cannot_read(browser, gateway):
    sign_in(browser, gateway)
    assert "Alice Liddell" in browser.find_element(By.ID, "status").text
    cookie = session_cookie(browser)
    assert cookie is not None
    assert cookie["httpOnly"] and cookie["secure"] and cookie["path"] == "/"
    assert cookie["sameSite"] in ("Lax", "Strict")
    assert "domain" not in cookie or not cookie["domain"].startswith("."), "a host-only cookie"
    assert len(cookie["value"]) >= 22, "at least 128 random bits"
    assert not cookie["value"].startswith("eyJ"), "no token in the cookie"
    assert "__Host-hardtack" not in browser.execute_script("return document.cookie"), "HttpOnly: the page sees none"
    status, user = page_call(browser, "/bff/user")
    assert status == 200 and user["sub"] == "alice" and user["name"] == "Alice Liddell" and len(user["sid"]) == 32
    # No token reached the browser: not in the page, not in its storage.
    storage = browser.execute_script("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")
    assert "eyJ" not in storage and "eyJ" not in browser.page_source


def test_a_call_through_a_route_carries_the_token_and_not_the_cookie(browser, gateway):
    sign_in(browser, gateway)
    status, echo = page_call(browser, "/api/echo/items?q=1", "POST")
    assert status == 200, echo
    assert echo["sub"] == "alice" and echo["token_client"] == CLIENT_ID
    assert echo["headers"]["authorization"] == "present"
    assert "cookie" not in echo["headers"] and "x-csrf" not in echo["headers"]
    assert echo["path"] == "/api/echo/items" and echo["query"] == "q=1"


def test_what_a_browser_leaves_unescaped_reaches_the_upstream_escaped(browser, gateway):
    """Chromium sends | and ^ in a path, and { } | ^ ` in a query, as they are (the URL standard's percent-encode
    sets leave them); the gateway escapes them on the way upstream, whose HTTP client refuses them raw (such a
    call was 502)."""
    sign_in(browser, gateway)
    status, echo = page_call(browser, '/api/echo/a|b^c?f={"a":1}|^`')
    assert status == 200, echo
    assert echo["path"] == "/api/echo/a%7Cb%5Ec"
    assert echo["query"] == "f=%7B%22a%22:1%7D%7C%5E%60"


def test_another_sites_form_and_fetches_reach_nothing(browser, gateway, provider, evil_site):
    sign_in(browser, gateway)
    before = provider.state()["api_calls"]
    browser.get(evil_site.origin + "/")
    results = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; window.run().then(done, (e) => done(String(e)));")
    # The page reads no answer (no CORS grant), the header's preflight fails, and a no-cors post is opaque;
    # on the server's side, SameSite kept the cookie back and the header was missing: nothing got through.
    assert results["plain"] == "blocked" and results["with-header"] == "blocked", results
    assert results["no-cors"] == 0, results
    browser.find_element(By.ID, "f").submit()
    time.sleep(1)
    assert provider.state()["api_calls"] == before, "nothing reached the API"
    # The session is still there for the app itself.
    browser.get(gateway.origin + "/")
    WebDriverWait(browser, 20).until(lambda driver: driver.find_element(By.ID, "status").text.startswith("Signed in"))


def test_twenty_calls_after_expiry_share_one_refresh(browser, gateway, provider):
    provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="2")
    try:
        sign_in(browser, gateway)
        # Only the signed-in token lives 2 s: the refreshed one lives long, so a slow burst cannot outlive it.
        provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="default")
        refreshes, reuse = provider.refreshes(), provider.state()["reuse_detections"]
        time.sleep(3)
        browser.find_element(By.ID, "burst").click()
        statuses = WebDriverWait(browser, 30).until(lambda driver: driver.execute_script("return window.burstStatuses"))
        assert statuses == [200] * 20, statuses
        assert provider.refreshes() == refreshes + 1
        assert provider.state()["reuse_detections"] == reuse
    finally:
        provider.control("/test/access-token-lifetime", client_id=CLIENT_ID, seconds="default")


def test_a_tampered_cookie_is_no_session(browser, gateway):
    sign_in(browser, gateway)
    cookie = session_cookie(browser)
    value = cookie["value"]
    tampered = value[:40] + ("A" if value[40] != "A" else "B") + value[41:]
    for forged in (tampered, value[:-2], "x"):
        browser.execute_cdp_cmd("Network.setCookie", {
            "name": "__Host-hardtack", "value": forged, "url": gateway.origin + "/", "path": "/", "secure": True,
            "httpOnly": True, "sameSite": "Lax"})
        status, body = page_call(browser, "/bff/user")
        assert status == 401, (forged[:6], status, body)
    browser.execute_cdp_cmd("Network.setCookie", {
        "name": "__Host-hardtack", "value": value, "url": gateway.origin + "/", "path": "/", "secure": True,
        "httpOnly": True, "sameSite": "Lax"})
    assert page_call(browser, "/bff/user")[0] == 200


def test_a_restart_keeps_the_session(browser, gateway, executable, provider, workdir):
    sign_in(browser, gateway)
    assert gateway.stop() == 0
    again = Gateway(executable, provider, workdir, port=gateway.port).start()
    try:
        status, user = page_call(browser, "/bff/user")
        assert status == 200 and user["sub"] == "alice"
    finally:
        again.stop()


def test_logout_with_a_wrong_sid_keeps_the_session_and_the_right_one_ends_it(browser, gateway, provider):
    sign_in(browser, gateway)
    sid = page_call(browser, "/bff/user")[1]["sid"]
    browser.get(gateway.origin + "/bff/logout?sid=" + "0" * 32)
    assert "invalid_sid" in browser.page_source
    assert page_call_from_app(browser, gateway, "/bff/user")[0] == 200
    revocations = provider.state()["revocations"]
    browser.get(gateway.origin + "/")
    WebDriverWait(browser, 20).until(lambda driver: driver.find_element(By.ID, "status").text.startswith("Signed in"))
    browser.find_element(By.ID, "logout").click()
    # Through the provider's end-session endpoint and back to the app.
    WebDriverWait(browser, 20).until(lambda driver: driver.current_url.rstrip("/") == gateway.origin)
    WebDriverWait(browser, 20).until(lambda driver: driver.find_element(By.ID, "status").text == "Not signed in.")
    assert session_cookie(browser) is None
    assert provider.state()["revocations"] == revocations + 1
    assert sid


def page_call_from_app(browser, gateway, path):
    browser.get(gateway.origin + "/")
    WebDriverWait(browser, 20).until(lambda driver: driver.execute_script("return !!window.hardtack"))
    return page_call(browser, path)


def test_back_channel_logout_valid_forged_and_replayed(browser, gateway, provider):
    sign_in(browser, gateway)

    def post(token):
        data = urllib.parse.urlencode({"logout_token": token}).encode()
        return gateway.request("POST", "/bff/backchannel", {"Content-Type": "application/x-www-form-urlencoded"}, data)[0]

    for forged in ({"signer": "other"}, {"aud": "someone-else"}, {"events": "none"}, {"nonce": "n"}, {"alg": "none"}):
        token = provider.control("/test/logout-token", sub="alice", **forged)["logout_token"]
        assert post(token) == 400, forged
    assert page_call(browser, "/bff/user")[0] == 200
    real = provider.control("/test/logout-token", sub="alice")["logout_token"]
    assert post(real) == 200
    assert page_call(browser, "/bff/user")[0] == 401
    assert post(real) == 400, "a replay is refused"


def test_health_and_metrics(gateway):
    assert gateway.request("GET", "/healthz")[0] == 200
    status, body = gateway.request("GET", "/metrics")
    assert status == 200 and b"hardtack_gateway_requests_total" in body


def test_a_copy_of_the_store_holds_no_token(browser, gateway, provider, workdir):
    sign_in(browser, gateway)
    assert page_call(browser, "/api/echo")[0] == 200
    tokens = provider.issued_tokens()
    assert tokens
    for name in os.listdir(os.path.join(workdir, "store")):
        data = open(os.path.join(workdir, "store", name), "rb").read()
        for token in tokens:
            assert token.encode() not in data, name
