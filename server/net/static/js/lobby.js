// The lobby: races under way (to watch), open races, and tournaments. The
// protocol pushes no lobby changes to a spectator, so the page asks again
// every few seconds while the lobby is on screen.

import { clock, fill, h, nameOf, policyText } from "/assets/js/dom.js";

const REFRESH_MS = 2000;

function raceRow(info, now) {
  const players = info.players.map((p) => nameOf(info, p)).join(", ") || "nobody yet";
  const left = info.ends_at ? ` · ${clock(Number(info.ends_at) - now)} left` : "";
  return h(
    "li",
    { class: `race phase-${info.phase}`, "data-race": info.id },
    h("a", { href: `/race/${info.id}` }, `${info.variant} · ${info.code}`),
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
        summary.variants.join(", "),
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
  const refresh = async () => {
    const [races, tournaments] = await Promise.all([
      wire.request({ t: "list_races" }),
      wire.request({ t: "list_tournaments" }),
    ]);
    const now = Date.now() / 1000;
    // Redrawing must not take the keyboard's place away.
    const focused = document.activeElement?.getAttribute("href");
    const underWay = races.races.filter((r) => r.phase !== "open");
    const open = races.races.filter((r) => r.phase === "open");
    fill(
      main,
      h("h1", {}, "Ballroom: watch a race"),
      section(
        "Races under way",
        underWay.map((r) => raceRow(r, now)),
        "No race is under way.",
      ),
      section("Tournaments", tournaments.tournaments.map(tournamentRow), "No tournaments."),
      section(
        "Open races",
        open.map((r) => raceRow(r, now)),
        "No race is waiting for racers.",
      ),
    );
    if (focused) main.querySelector(`a[href="${CSS.escape(focused)}"]`)?.focus();
  };
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), REFRESH_MS);
  stop.push(() => clearInterval(timer));
}
