"""The provider's two HTML pages: sign-in and consent at the authorization endpoint, and the device
verification page. Plain forms a person can use and a script can fill in: every field is an
`<input>` with its name and value in double quotes, and each form has one `method="post"` action."""

from html import escape

STYLE = "body{font-family:sans-serif;max-width:32em;margin:3em auto}label{display:block;margin:.5em 0}"


def _page(title, body, status=200):
    html = (
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{0}</title><style>{1}</style></head>"
        "<body><h1>{0}</h1>{2}</body></html>"
    ).format(escape(title), STYLE, body)
    return html, status, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}


def _credentials():
    return (
        '<label>User name <input type="text" name="username" value="alice"></label>'
        '<label>Password <input type="password" name="password" value=""></label>'
    )


def _decisions():
    return (
        '<button type="submit" name="decision" value="approve">Allow</button> '
        '<button type="submit" name="decision" value="deny">Deny</button>'
    )


def login(client_id, scope, fields, error=None, status=200):
    """Sign in and consent: the authorization request travels in hidden fields."""
    hidden = "".join(
        '<input type="hidden" name="{}" value="{}">'.format(escape(name), escape(value))
        for name, value in fields
    )
    notice = '<p role="alert">{}</p>'.format(escape(error)) if error else ""
    body = (
        "{notice}<p><b>{client}</b> asks for: {scope}</p>"
        '<form method="post" action="/authorize">{hidden}{credentials}{decisions}</form>'
    ).format(
        notice=notice, client=escape(client_id), scope=escape(scope or "(nothing)"), hidden=hidden,
        credentials=_credentials(), decisions=_decisions(),
    )
    return _page("Sign in", body, status)


def device_form(user_code="", error=None, status=200):
    """Where the user types the code a device shows."""
    notice = '<p role="alert">{}</p>'.format(escape(error)) if error else ""
    body = (
        '{notice}<form method="post" action="/device">'
        '<label>Code <input type="text" name="user_code" value="{code}"></label>{credentials}{decisions}</form>'
    ).format(notice=notice, code=escape(user_code), credentials=_credentials(), decisions=_decisions())
    return _page("Connect a device", body, status)


def device_done(approved):
    text = "Approved: you may return to your device." if approved else "Refused: the device will not be signed in."
    return _page("Device", "<p>{}</p>".format(text))


def error(message, status=400):
    return _page("Error", "<p>{}</p>".format(escape(message)), status)


def signed_out():
    """RP-initiated logout without a post_logout_redirect_uri."""
    return _page("Signed out", "<p>You are signed out.</p>")
