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

  // What the form calls a field: its label's own words ("Motivo"), else the field's name.
  function labelOf(form, field) {
    var input = form && form.querySelector && form.querySelector('[name="' + field + '"]');
    var label = input && input.closest("label");
    if (!label) { return null; }
    var words = Array.prototype.filter.call(label.childNodes, function (n) { return n.nodeType === 3; })
      .map(function (n) { return n.textContent; }).join(" ").trim();
    return words || null;
  }

  // The service's error envelope, in words. A refused form names each field as the form labels
  // it (with the service's name beside it) instead of the envelope's "see the fields in errors".
  function describe(xhr, form) {
    try {
      var body = JSON.parse(xhr.responseText);
      if (body.errors && body.errors.length) {
        return "Verifique " + body.errors.map(function (e) {
          var label = labelOf(form, e.field);
          // Messages start with the field's name ("reason deve ter…"): said once, by its label.
          var said = e.message.indexOf(e.field + " ") === 0 ? e.message.slice(e.field.length + 1) : e.message;
          return (label ? label + " (" + e.field + ")" : e.field) + ": " + said;
        }).join("; ") + ".";
      }
      return body.message || ("Erro " + xhr.status + ".");
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
    say(describe(xhr, event.detail.elt));
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
