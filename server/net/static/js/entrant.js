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

export async function showEntrant(wire, main, stop, code) {
  const me = wire.welcome.player;
  const note = h(
    "p",
    { class: "notice entrant-note", role: "status" },
    "You are entered: your table opens here when your stage starts.",
  );
  const inner = h("div", {});
  fill(main, note, inner);
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
  const race = tableOf(reply.tournament, me);
  if (race) toTable(race);
}
