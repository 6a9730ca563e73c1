// The page's entry: one connection, and the view the address names. Links
// inside the page change the address without reloading; every address also
// works opened cold (the node serves this page for each of them). Watching
// views connect as an anonymous spectator, afresh for each view; playing
// views (/play…) connect as the browser's kept identity (identity.js) and
// share one connection, so a queue place or a seat survives moving between them.

import { h, fill } from "/assets/js/dom.js";
import { showEntrant } from "/assets/js/entrant.js";
import { showGame } from "/assets/js/game.js";
import { forgetIdentity, loadIdentity, onIdentityChange } from "/assets/js/identity.js";
import { showLobby } from "/assets/js/lobby.js";
import { showPlay } from "/assets/js/play.js";
import { showRace } from "/assets/js/race.js";
import { showReplay } from "/assets/js/replay.js";
import { showTournament } from "/assets/js/tournament.js";
import { showTv } from "/assets/js/tv.js";
import { Wire, nodeUrl } from "/assets/js/wire.js";

const main = document.getElementById("main");
const connection = document.getElementById("connection");
const RETRY_MS = [500, 1000, 2000, 5000];

let wire = null;
let wireKey = null; // "watch", or "play:" and the token the connection said hello with
let stops = [];
let retries = 0;

function route(path) {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "play" && parts.length === 1) return showPlay;
  if (parts[0] === "play" && parts.length === 2) return (w, m, s) => showGame(w, m, s, parts[1]);
  if (parts[0] === "play" && parts[1] === "tournament" && parts.length === 3)
    return (w, m, s) => showEntrant(w, m, s, parts[2]);
  if (parts[0] === "tv" && parts.length === 1) return showTv;
  if (parts[0] === "race" && parts.length === 2) return (w, m, s) => showRace(w, m, s, parts[1]);
  if (parts[0] === "tournament" && parts.length === 2)
    return (w, m, s) => showTournament(w, m, s, parts[1]);
  if (parts[0] === "replay" && parts.length === 3)
    return (w, m, s) => showReplay(w, m, s, parts[1], parts[2]);
  return showLobby;
}

async function show() {
  for (const stop of stops) stop();
  stops = [];
  const view = route(location.pathname);
  const playing = location.pathname === "/play" || location.pathname.startsWith("/play/");
  const identity = playing ? loadIdentity() : null;
  const key = playing ? `play:${identity?.token ?? ""}` : "watch";
  // A fresh connection for each watching view: the node stops sending what the
  // last one followed. Playing views keep theirs while the identity stays.
  if (wire && (key === "watch" || key !== wireKey || !wire.ready)) {
    wire.onstate = () => {};
    wire.close();
    wire = null;
  }
  if (!wire) {
    wire = new Wire(nodeUrl(location));
    wire.onstate = lost;
    wireKey = key;
  }
  try {
    fill(connection, "connecting…");
    await wire.open(identity ? { name: identity.name, token: identity.token } : {});
    retries = 0;
    fill(connection, "connected");
    connection.className = "ok";
    await view(wire, main, stops);
  } catch (error) {
    if (error.code === "closed") return; // lost() takes over
    if (error.code === "bad_token") {
      // Logged out elsewhere, or expired: this browser is nobody again.
      forgetIdentity();
      show();
      return;
    }
    fill(
      main,
      h("h1", {}, "Cannot show this"),
      h("p", { class: "error" }, error.message),
      h("p", {}, h("a", { href: "/" }, "Back to the lobby")),
    );
  }
}

function lost() {
  connection.className = "down";
  const wait = RETRY_MS[Math.min(retries, RETRY_MS.length - 1)];
  retries += 1;
  fill(connection, `connection lost: trying again in ${wait / 1000} s`);
  setTimeout(show, wait);
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href^='/']");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  if (link.getAttribute("href") !== location.pathname)
    history.pushState(null, "", link.getAttribute("href"));
  show();
  main.focus();
});
window.addEventListener("popstate", show);
// Another tab logged in or out: a playing view follows it.
onIdentityChange(() => location.pathname.startsWith("/play") && show());
show();
