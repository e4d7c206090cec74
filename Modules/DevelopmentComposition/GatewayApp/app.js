// The demo app: plain JavaScript, no framework. Every call sends the header X-CSRF: 1, which the gateway
// requires (another site's page cannot send it), and the browser adds the session cookie itself.
"use strict";

const output = document.getElementById("output");
const status = document.getElementById("status");

function show(label, value) {
  output.textContent = label + "\n" + (typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

async function gateway(path, options = {}) {
  const response = await fetch(path, { ...options, headers: { "X-CSRF": "1", ...(options.headers || {}) } });
  let body = await response.text();
  try { body = JSON.parse(body); } catch (_) { /* not JSON */ }
  return { status: response.status, body };
}

async function who() {
  const user = await gateway("/bff/user");
  if (user.status === 200) {
    status.textContent = "Signed in as " + (user.body.name || user.body.sub) + " (" + user.body.sub + ").";
    document.getElementById("logout").href = "/bff/logout?sid=" + encodeURIComponent(user.body.sid);
  } else {
    status.textContent = "Not signed in.";
  }
  return user;
}

document.getElementById("call").addEventListener("click", async () => {
  const answer = await gateway(window.HARDTACK_API || "/api/echo");
  show("GET " + (window.HARDTACK_API || "/api/echo") + " → " + answer.status, answer.body);
});

document.getElementById("burst").addEventListener("click", async () => {
  const path = window.HARDTACK_API || "/api/echo";
  // The same API twenty times, told apart by a query (the demo's upstream has no other paths).
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway(path + "?call=" + i)));
  show("20 calls at once → " + answers.map((a) => a.status).join(" "), "");
  window.burstStatuses = answers.map((a) => a.status);
});

// For the browser tests: the page's own calls, as its buttons make them.
window.hardtack = { gateway, who };
who();
