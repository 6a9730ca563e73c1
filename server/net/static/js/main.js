// The page's entry: one connection, and the view the address names. Links
// inside the page change the address without reloading; every address also
// works opened cold (the node serves this page for each of them).

import { h, fill } from "/assets/js/dom.js";
import { showLobby } from "/assets/js/lobby.js";
import { showRace } from "/assets/js/race.js";
import { showReplay } from "/assets/js/replay.js";
import { showTournament } from "/assets/js/tournament.js";
import { Wire, nodeUrl } from "/assets/js/wire.js";

const main = document.getElementById("main");
const connection = document.getElementById("connection");
const RETRY_MS = [500, 1000, 2000, 5000];

let wire = null;
let stops = [];
let retries = 0;

function route(path) {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
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
  // A fresh connection for each view: the node stops sending what the last one followed.
  if (wire) {
    wire.onstate = () => {};
    wire.close();
  }
  wire = new Wire(nodeUrl(location));
  wire.onstate = lost;
  try {
    fill(connection, "connecting…");
    await wire.open();
    retries = 0;
    fill(connection, "connected");
    connection.className = "ok";
    await view(wire, main, stops);
  } catch (error) {
    if (error.code === "closed") return; // lost() takes over
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
show();
