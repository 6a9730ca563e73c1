// The lobby: races under way (to watch), open races, and tournaments. The
// server pushes the list of races whenever it changes (list_races with
// follow); tournaments have no such push, so the page asks for them again
// every few seconds, which also keeps the clocks of the races moving.

import { clock, fill, h, nameOf, policyText, raceName } from "/assets/js/dom.js";
import { variantTitle } from "/assets/js/variants.js";

const REFRESH_MS = 2000;

function raceRow(info, now) {
  const players = info.players.map((p) => nameOf(info, p)).join(", ") || "nobody yet";
  const left = info.ends_at ? ` · ${clock(Number(info.ends_at) - now)} left` : "";
  return h(
    "li",
    { class: `race phase-${info.phase}`, "data-race": info.id },
    h("a", { href: `/race/${info.id}` }, `${variantTitle(info.variant)} · ${raceName(info)}`),
    h(
      "span",
      { class: "meta" },
      `${info.phase}${left} · ${players} · watch ${policyText(info.spectate, info.delay)}`,
    ),
  );
}

function tournamentRow(summary) {
  return h(
    "li",
    { class: `tournament status-${summary.status}`, "data-tournament": summary.id },
    h("a", { href: `/tournament/${summary.code}` }, `${summary.name} · ${summary.code}`),
    h(
      "span",
      { class: "meta" },
      [
        summary.status,
        summary.format,
        `${Number(summary.entrants)} entrants`,
        summary.variants.map(variantTitle).join(", "),
      ].join(" · "),
    ),
  );
}

function section(title, rows, empty) {
  return h(
    "section",
    { class: "listing" },
    h("h2", {}, title),
    rows.length ? h("ul", {}, rows) : h("p", { class: "quiet" }, empty),
  );
}

export async function showLobby(wire, main, stop) {
  document.title = "Ballroom · watch";
  let races = [];
  let tournaments = [];
  const draw = () => {
    const now = Date.now() / 1000;
    // Redrawing must not take the keyboard's place away.
    const focused = document.activeElement?.getAttribute("href");
    const underWay = races.filter((r) => r.phase !== "open");
    const open = races.filter((r) => r.phase === "open");
    fill(
      main,
      h("h1", {}, "Ballroom: watch a race"),
      section(
        "Races under way",
        underWay.map((r) => raceRow(r, now)),
        "No race is under way.",
      ),
      section("Tournaments", tournaments.map(tournamentRow), "No tournaments."),
      section(
        "Open races",
        open.map((r) => raceRow(r, now)),
        "No race is waiting for racers.",
      ),
    );
    if (focused) main.querySelector(`a[href="${CSS.escape(focused)}"]`)?.focus();
  };
  const readTournaments = async () => {
    tournaments = (await wire.request({ t: "list_tournaments" })).tournaments;
    draw();
  };
  stop.push(
    wire.on("races", (pushed) => {
      races = pushed.races;
      draw();
    }),
  );
  races = (await wire.request({ t: "list_races", follow: true })).races;
  await readTournaments();
  const timer = setInterval(() => readTournaments().catch(() => {}), REFRESH_MS);
  stop.push(() => clearInterval(timer));
  stop.push(() => wire.request({ t: "list_races", follow: false }).catch(() => {}));
}
