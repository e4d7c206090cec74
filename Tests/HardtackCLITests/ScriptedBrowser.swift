import Foundation
import TestSupport

/// A `BROWSER` program for the code flow's end-to-end tests: it is started with the authorization URL
/// as its one argument, fetches the login form, posts it (approving as alice/wonderland, or denying,
/// per `SCRIPTED_BROWSER_MODE`; on oidc-provider-mock's form, as subject `alice`), and follows the server's redirect to the loopback listener, as a user
/// in a browser would. It writes the landing page it was shown to `SCRIPTED_BROWSER_PAGE`.
enum ScriptedBrowser {
    static let source = #"""
        import os, re, sys, urllib.parse, urllib.request

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        opener = urllib.request.build_opener(NoRedirect)
        mode = os.environ.get("SCRIPTED_BROWSER_MODE", "approve")
        url = sys.argv[1]
        origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(url))
        form = urllib.request.urlopen(url, timeout=20).read().decode()
        if 'name="sub"' in form:
            # oidc-provider-mock's form: a subject to sign in as, posted back to the same URL.
            try:
                fields = {"action": "deny"} if mode == "deny" else {"sub": "alice"}
                opener.open(url, data=urllib.parse.urlencode(fields).encode(), timeout=20)
                sys.exit("no redirect")
            except urllib.error.HTTPError as redirect:
                location = redirect.headers["Location"]
            page = urllib.request.urlopen(location, timeout=20).read().decode()
            with open(os.environ["SCRIPTED_BROWSER_PAGE"], "w") as out:
                out.write(location.split("?")[0] + "\n" + page)
            sys.exit(0)
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form))
        fields = {k: v.replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") for k, v in fields.items()}
        fields.update({"username": "alice", "password": "wonderland", "decision": "deny" if mode == "deny" else "approve"})
        action = re.search(r'<form method="post" action="([^"]+)"', form).group(1)
        try:
            opener.open(origin + action, data=urllib.parse.urlencode(fields).encode(), timeout=20)
            sys.exit("no redirect")
        except urllib.error.HTTPError as redirect:
            location = redirect.headers["Location"]
        if mode == "tamper-state":
            location = re.sub(r"state=[^&]*", "state=forged", location)
        page = urllib.request.urlopen(location, timeout=20).read().decode()
        with open(os.environ["SCRIPTED_BROWSER_PAGE"], "w") as out:
            out.write(location.split("?")[0] + "\n" + page)
        """#

    /// Writes the program into `directory` and returns the path of an executable wrapper.
    static func install(in directory: String) throws -> String {
        let script = directory + "/browser.py"
        try source.write(toFile: script, atomically: true, encoding: .utf8)
        let wrapper = directory + "/browser"
        try ExecutableScript.write("#!/bin/sh\nexec python3 '\(script)' \"$@\"\n", to: wrapper)
        return wrapper
    }
}
