// /play/tournament/CODE: a tournament as one of its entrants. The page shows
// the tournament as the watching page does, and takes the entrant to their
// table whenever a stage seats them (the server's `tournament` pushes say
// where: a running stage's race with the entrant among its players and no
// result for them yet); from the table, the next stage's push brings them on.

import { fill, go, h } from "/assets/js/dom.js";
import { showTournament } from "/assets/js/tournament.js";

/** The race where `me` is seated and still racing in `doc`'s running stage, or null. */
export function tableOf(doc, me) {
  for (const stage of doc?.stages ?? []) {
    if (stage.status !== "running") continue;
    const seat = (stage.races ?? []).find((r) => (r.players ?? []).includes(me));
    if (seat && !(stage.results && stage.results[me])) return String(seat.race);
  }
  return null;
}

/** Calls `onTable(race)` when a `tournament` push seats `me` at a race other than `current`. */
export function followTables(wire, me, current, onTable) {
  return wire.on("tournament", (m) => {
    const race = tableOf(m.tournament, me);
    if (race && race !== current) onTable(race);
  });
}

/**
 * An arena entrant's pause: a button that steps out (no new race until they come back)
 * or comes back (`pause_arena`); nothing for the other formats or once it is over.
 */
export function arenaPause(wire, doc, me) {
  const entrant = doc?.entrants?.find((e) => e.player === me);
  const over = doc?.status === "finished" || doc?.status === "cancelled";
  if (doc?.format !== "arena" || !entrant || entrant.removed || over) return null;
  const paused = Boolean(entrant.paused);
  const button = h(
    "button",
    { type: "button", class: "arena-pause" },
    paused ? "Come back" : "Pause",
  );
  button.addEventListener("click", () => {
    button.disabled = true;
    wire
      .request({ t: "pause_arena", tournament: doc.id, paused: !paused })
      .catch(() => (button.disabled = false));
  });
  return h(
    "p",
    { class: "arena-controls" },
    paused
      ? "You are paused: no new race for you. "
      : "You race again as soon as you are grouped. ",
    button,
  );
}

/** Keeps `box` holding the arena pause control of the newest document. */
function followPause(wire, box, me) {
  return wire.on("tournament", (m) => fill(box, arenaPause(wire, m.tournament, me)));
}

export async function showEntrant(wire, main, stop, code) {
  const me = wire.welcome.player;
  const note = h(
    "p",
    { class: "notice entrant-note", role: "status" },
    "You are entered: your table opens here when your stage starts.",
  );
  const inner = h("div", {});
  const controls = h("div", {});
  fill(main, note, controls, inner);
  stop.push(followPause(wire, controls, me));
  let gone = false;
  const toTable = (race) => {
    if (gone) return;
    gone = true;
    go(`/play/${encodeURIComponent(race)}`);
  };
  stop.push(followTables(wire, me, null, toTable));
  // watch_tournament also tells the server this entrant is back (their grace restarts).
  await showTournament(wire, inner, stop, code);
  const reply = await wire.request({ t: "watch_tournament", code });
  fill(controls, arenaPause(wire, reply.tournament, me));
  const race = tableOf(reply.tournament, me);
  if (race) toTable(race);
}
