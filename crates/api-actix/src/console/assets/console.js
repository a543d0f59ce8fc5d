// The back office console: signs in against POST /signin, keeps the access token for this tab
// only (sessionStorage), and sends it as a bearer token on every htmx request; the pages are
// HTML fragments the service renders from the same use cases as the API.
(function () {
  "use strict";
  var KEY = "sales-console-token";
  var signin = document.getElementById("signin");
  var app = document.getElementById("app");
  var nav = document.getElementById("nav");
  var alertBox = document.getElementById("alert");

  function token() { return sessionStorage.getItem(KEY); }

  function say(text) {
    alertBox.textContent = text || "";
    alertBox.hidden = !text;
  }

  function show(signedIn) {
    signin.hidden = signedIn;
    app.hidden = !signedIn;
    nav.hidden = !signedIn;
  }

  function open(path) { htmx.ajax("GET", path, { target: "#app" }); }

  // The service's error envelope, in words: the message and each field named.
  function describe(xhr) {
    try {
      var body = JSON.parse(xhr.responseText);
      var text = body.message || ("Erro " + xhr.status);
      if (body.errors && body.errors.length) {
        text += " " + body.errors.map(function (e) { return e.field + ": " + e.message; }).join("; ");
      }
      return text;
    } catch (_) {
      return "Erro " + xhr.status + ".";
    }
  }

  document.body.addEventListener("htmx:configRequest", function (event) {
    var t = token();
    if (t) { event.detail.headers["Authorization"] = "Bearer " + t; }
  });
  document.body.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    if (xhr.status === 401) {
      sessionStorage.removeItem(KEY);
      show(false);
      say("Sessão encerrada: entre novamente.");
      return;
    }
    // A token of another application (a partner's, the shop's): the console is the back office's.
    if (xhr.status === 403 && !event.detail.requestConfig.verb.match(/post/i)) {
      sessionStorage.removeItem(KEY);
      show(false);
    }
    say(describe(xhr));
  });
  document.body.addEventListener("htmx:sendError", function () {
    say("Sem conexão com o serviço. Tente novamente.");
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful) { say(""); }
  });

  document.getElementById("signin-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = event.target;
    fetch("/signin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: form.email.value, password: form.password.value, aplicacao: "BACKOFFICE" })
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok || !body.token) { throw new Error(body.message || "Não foi possível entrar."); }
        sessionStorage.setItem(KEY, body.token);
        form.password.value = "";
        say("");
        show(true);
        open("/console/proposals");
      });
    }).catch(function (error) { say(error.message); });
  });

  document.getElementById("signout").addEventListener("click", function () {
    var t = token();
    sessionStorage.removeItem(KEY);
    show(false);
    if (t) { fetch("/signout", { method: "POST", headers: { Authorization: "Bearer " + t } }); }
  });

  // Documents need the bearer token too: fetched, then shown from memory.
  document.body.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-document]");
    if (!link) { return; }
    event.preventDefault();
    fetch(link.getAttribute("href"), { headers: { Authorization: "Bearer " + token() } })
      .then(function (response) {
        if (!response.ok) { return response.text().then(function (t) { throw new Error(describe({ status: response.status, responseText: t })); }); }
        return response.blob();
      })
      .then(function (blob) { window.open(URL.createObjectURL(blob), "_blank"); })
      .catch(function (error) { say(error.message); });
  });

  if (token()) { show(true); open("/console/proposals"); } else { show(false); }
})();
