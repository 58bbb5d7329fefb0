// The page of `five-towers serve`: one game per tab, its id in the address (#id), so a reload comes back to it.
// The server holds the game; this page shows it, sends a person's moves, and asks for each agent's (or forced)
// move at the pace chosen here, so that nothing happens faster than a person can follow or while paused.
"use strict";
(function () {
  const $ = function (id) { return document.getElementById(id); };
  const SPEED_KEY = "five-towers-serve-speed";
  let game = null;        // the last answer of the server: where the game stands
  let timer = null;       // the next agent move (or a look at a move another tab asked for)
  let pending = false;    // a request is out: nothing else is sent until it is answered
  let paused = false;
  let shownLog = {id: null, count: 0};
  let shownMoves = null;  // which decision the move buttons are for
  let textOpened = false; // the table as text is opened once for a person (their own hand is in it), then left as set

  const stored = window.localStorage ? localStorage.getItem(SPEED_KEY) : null;
  if (stored !== null && Array.from($("speed").options).some(function (o) { return o.value === stored; })) {
    $("speed").value = stored;
  } else {
    $("speed").value = "900";
  }

  function api(method, path, body) {
    const init = {method: method, headers: {}};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      return r.json().catch(function () { return {error: "the server sent no readable answer"}; })
        .then(function (data) { return {ok: r.ok, status: r.status, data: data}; });
    }, function () {
      return {ok: false, status: 0, data: {error: "the server cannot be reached (is five-towers serve still running?)"}};
    });
  }

  function url(what) { return "/api/games/" + encodeURIComponent(game.id) + (what ? "/" + what : ""); }
  function seatText(seat) { return "seat " + seat + " (" + game.seats[seat].label + ")"; }
  function say(text) { $("notice").textContent = text || ""; }

  function start() {
    const id = decodeURIComponent(location.hash.slice(1));
    if (!id) { newGame(""); return; }
    api("GET", "/api/games/" + encodeURIComponent(id)).then(function (r) {
      if (r.ok) { show(r.data); return; }
      newGame((r.data.error || "that game is gone") + " - this is a new game.");
    });
  }

  function newGame(notice) {
    clearTimeout(timer);
    pending = true;
    api("POST", "/api/games", {}).then(function (r) {
      pending = false;
      if (!r.ok) { say(r.data.error); return; }
      history.replaceState(null, "", "#" + r.data.id);
      say(notice);
      show(r.data);
    });
  }

  function show(state) {
    game = state;
    render();
    schedule();
  }

  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (!game || pending) return;
    if (game.thinking) { timer = setTimeout(refresh, 400); return; }  // another tab asked for this move
    if ((game.waiting === "agent" || game.waiting === "forced") && !paused) {
      timer = setTimeout(advance, +$("speed").value);
    }
  }

  function answered(r) {
    pending = false;
    if (r.ok) { show(r.data); return; }
    say(r.data.error);
    refresh();
  }

  function refresh() {
    if (!game) return;
    api("GET", url("")).then(function (r) {
      if (r.ok) { show(r.data); return; }
      say(r.data.error);
      if (r.status === 404) newGame(r.data.error + " - this is a new game.");
    });
  }

  function advance() {
    if (pending || !game || (game.waiting !== "agent" && game.waiting !== "forced")) return;
    pending = true;
    render();
    api("POST", url("advance"), {at: game.moves}).then(answered);
  }

  function play(action) {
    if (pending || !game || game.waiting !== "person") return;
    pending = true;
    say("");
    render();
    api("POST", url("move"), {action: action, at: game.moves}).then(answered);
  }

  function askHint() {
    if (!game || game.waiting !== "person" || $("hint").disabled) return;
    $("hint").disabled = true;
    $("hint-note").textContent = game.hint_agent + " is thinking...";
    const at = game.moves;
    api("POST", url("hint"), {at: at}).then(function (r) {
      if (r.ok) { if (!pending && game && r.data.moves === game.moves) show(r.data); }
      else $("hint-note").textContent = r.data.error;
      $("hint").disabled = false;
    });
  }

  function statusText() {
    const w = game.waiting;
    if (w === "over") return "Game over";
    if (w === "stopped") return "The game is stopped";
    const who = seatText(game.to_move);
    if (w === "person") return "Your move" + (game.seats.filter(function (s) { return s.person; }).length > 1
      ? ", seat " + game.to_move : "") + " (" + game.phase + ")";
    if (w === "forced") return who + " has one legal move" + (paused ? " (paused)" : "");
    if (pending || game.thinking) return who + " is thinking...";
    return who + " to move" + (paused ? " (paused)" : "");
  }

  function render() {
    const persons = game.seats.filter(function (s) { return s.person; }).map(function (s) { return s.seat; });
    const heading = game.title + " - " + game.players + " players, " + game.variant;
    $("title").textContent = heading;
    document.title = heading + (persons.length ? "" : " (watching)");
    // the game's number and seed rebuild its deal: the server sends them only once they give nothing away
    const dealt = game.seed === null ? "The deal is secret until the game is over"
      : "Game " + game.index + " of seed " + game.seed;
    $("sub").textContent = (persons.length ? "" : "Watching the agents play. ") + dealt + ": "
      + game.seats.map(function (s) { return "seat " + s.seat + " " + s.label; }).join(", ");
    $("seeded").hidden = !game.fixed_seed;
    const main = $("table");
    main.dataset.waiting = game.waiting;
    main.dataset.moves = String(game.moves);
    main.dataset.id = game.id;
    main.dataset.busy = pending ? "1" : "";
    $("status").textContent = statusText();
    $("over").hidden = game.waiting !== "over";
    $("result").textContent = game.result ? game.result.line : "";
    $("error").hidden = !game.error;
    $("error").textContent = game.error ? "An agent failed: " + game.error : "";
    const picture = $("picture");
    const src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(game.svg);
    if (picture.getAttribute("src") !== src) picture.setAttribute("src", src);
    picture.alt = "The table: " + game.summary;
    $("legend").textContent = game.legend;
    $("text").textContent = game.text;
    if (!textOpened && persons.length) { $("text-box").open = true; textOpened = true; }
    $("text-box").querySelector("summary").textContent = game.view_seat === null ? "The table as text"
      : "The table as text, as seat " + game.view_seat + " sees it";
    renderMoves(persons);
    renderScores();
    renderControls();
    renderLog();
  }

  function renderMoves(persons) {
    $("moves-box").hidden = persons.length === 0;
    const deciding = game.waiting === "person";
    const key = game.id + ":" + game.moves + ":" + game.waiting;
    if (shownMoves !== key) {
      shownMoves = key;
      const box = $("moves"), choice = $("choice");
      box.textContent = "";
      choice.textContent = "";
      game.legal.forEach(function (m) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = m.name;
        b.dataset.action = String(m.action);
        b.addEventListener("click", function () { play(m.action); });
        box.appendChild(b);
        const o = document.createElement("option");
        o.value = String(m.action);
        o.textContent = m.name;
        choice.appendChild(o);
      });
    }
    Array.from($("moves").children).forEach(function (b) { b.disabled = pending; });
    $("pick").hidden = !deciding;
    $("play-choice").disabled = pending || !deciding;
    $("moves-note").textContent = deciding ? "" : game.waiting === "over" ? "The game is over."
      : game.waiting === "stopped" ? "The game is stopped." : "Not your move: " + statusText() + ".";
    $("help").textContent = game.help;
    $("help-box").hidden = !deciding;
    const hinting = Boolean(game.hint_agent) && deciding;
    $("hint-box").hidden = !hinting;
    const list = $("hints");
    list.textContent = "";
    if (!hinting) return;
    $("hint").disabled = pending;
    if (!game.hint) { $("hint-note").textContent = "ask " + game.hint_agent + " for its top moves"; return; }
    if (game.hint.error) { $("hint-note").textContent = game.hint.error; return; }
    $("hint-note").textContent = game.hint.agent + "'s top moves (value: its estimate of your share of the win):";
    game.hint.moves.forEach(function (h) {
      const li = document.createElement("li");
      li.textContent = h.name + (h.value === null ? " (not searched)" : " - " + Math.round(h.value * 100) + "%")
        + (h.visits ? " (" + h.visits + " visits)" : "") + (h.chosen ? " - its choice" : "");
      list.appendChild(li);
    });
  }

  function renderScores() {
    const body = $("scores").tBodies[0];
    body.textContent = "";
    const winners = game.result ? game.result.winners : [];
    game.seats.forEach(function (s) {
      const tr = document.createElement("tr");
      if (s.seat === game.to_move) { tr.className = "turn"; tr.setAttribute("aria-current", "true"); }
      if (winners.indexOf(s.seat) >= 0) tr.className = "winner";
      [String(s.seat), s.label + (s.person ? " (you)" : "") + (s.seat === game.to_move ? " - to move" : "")
        + (winners.indexOf(s.seat) >= 0 ? " - winner" : ""), String(s.score)].forEach(function (text) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }

  function renderControls() {
    const agentsTurn = game.waiting === "agent" || game.waiting === "forced";
    $("pause").textContent = paused ? "Resume" : "Pause";
    $("pause").setAttribute("aria-pressed", paused ? "true" : "false");
    $("step").disabled = !(paused && agentsTurn) || pending;
    const link = $("record");
    if (game.record) {
      link.setAttribute("href", url("record"));
      link.setAttribute("download", game.game + "-game-" + game.index + ".json");
      link.removeAttribute("aria-disabled");
      link.title = "the game's record: five-towers replay opens it";
    } else {
      link.removeAttribute("href");
      link.setAttribute("aria-disabled", "true");
      link.title = "it names the hidden cards: ready once the game is over";
    }
  }

  function renderLog() {
    const list = $("log");
    if (shownLog.id !== game.id || shownLog.count > game.log.length) {
      list.textContent = "";
      shownLog = {id: game.id, count: 0};
    }
    game.log.slice(shownLog.count).forEach(function (e) {
      const li = document.createElement("li");
      li.textContent = e.text;
      li.className = e.kind;
      list.appendChild(li);
    });
    if (game.log.length !== shownLog.count) list.scrollTop = list.scrollHeight;
    shownLog.count = game.log.length;
  }

  $("new").addEventListener("click", function () { if (!pending) newGame(""); });
  $("pause").addEventListener("click", function () {
    paused = !paused;
    if (game) { render(); schedule(); }
  });
  $("step").addEventListener("click", function () { if (paused) advance(); });
  $("speed").addEventListener("change", function () {
    if (window.localStorage) localStorage.setItem(SPEED_KEY, $("speed").value);
    schedule();
  });
  $("play-choice").addEventListener("click", function () {
    if ($("choice").value !== "") play(+$("choice").value);
  });
  $("hint").addEventListener("click", askHint);
  window.addEventListener("hashchange", function () {
    if (!game || decodeURIComponent(location.hash.slice(1)) !== game.id) { clearTimeout(timer); start(); }
  });
  start();
}());
