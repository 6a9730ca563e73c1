// A tournament, followed with `watch_tournament`: the whole document comes
// again at every change, so the page redraws it whole (docs/protocol.md,
// "The tournament document"), around the tables racing now, which keep
// their live boards across redraws (tables.js).

import { clock, fill, h } from "/assets/js/dom.js";
import { LiveTables } from "/assets/js/tables.js";
import { variantTitle } from "/assets/js/variants.js";

function names(doc) {
  const map = new Map(doc.entrants.map((e) => [e.player, e.name]));
  return (player) => (player ? (map.get(player) ?? player) : "bye");
}

/** An entrant's game at their table now, in short: "23/104", "104/104 ✓"; "" when unseen. */
function nowText(view) {
  if (!view) return "";
  const status = view.won ? " ✓" : view.resigned ? " resigned" : view.timeout ? " out of time" : "";
  return `${Number(view.home)}/${Number(view.target)}${status}`;
}

function entrants(doc, now) {
  return h(
    "section",
    { class: "entrants" },
    h("h2", {}, `Entrants (${doc.entrants.length})`),
    doc.entrants.length
      ? h(
          "ol",
          {},
          doc.entrants.map((e) => {
            const view = now(e.player);
            return h(
              "li",
              {},
              e.name,
              view ? h("span", { class: "now" }, ` · ${nowText(view)} home now`) : null,
            );
          }),
        )
      : h("p", { class: "quiet" }, "Nobody has entered yet."),
  );
}

/** An arena's streak mark: "🔥3" for three races won in a row (2 or more: double points). */
export function streakMark(streak) {
  return Number(streak) >= 2 ? `🔥${Number(streak)}` : "";
}

/** An arena's extra standings cells (races, streak, paused), or none in the other formats. */
function arenaCells(doc, s) {
  if (doc.format !== "arena") return [];
  const paused = doc.entrants.some((e) => e.player === s.player && e.paused);
  const marks = [streakMark(s.streak), paused ? "⏸" : ""].filter(Boolean).join(" ");
  return [h("td", {}, String(s.races ?? 0)), h("td", { class: "streak" }, marks)];
}

/** The clock of an arena: time left, and whether new races still start. */
function arenaSchedule(doc, now) {
  const racing = doc.stages.filter((s) => s.status === "running").length;
  const races = `${racing} race${racing === 1 ? "" : "s"} under way`;
  const left = doc.ends_at ? Number(doc.ends_at) - now : Number(doc.duration);
  const entrants = doc.entrants.length;
  let text;
  if (doc.status === "open")
    text = `Arena of ${clock(Number(doc.duration))}: the host starts it (${entrants} entrants).`;
  else if (doc.status === "finished" || doc.status === "cancelled")
    text = `The arena is ${doc.status}.`;
  else if (left <= 0) text = `Time is up: the last races finish (${races}).`;
  else if (doc.status === "paused")
    text = `${clock(left)} left · paused by the host: no new races · ${races}.`;
  else if (left <= Number(doc.cutoff))
    text = `${clock(left)} left · no new races now · ${races}.`;
  else text = `${clock(left)} left · ${races}.`;
  return h(
    "section",
    { class: "schedule arena-clock" },
    h("p", {}, h("span", { class: "next" }, text)),
  );
}

/**
 * The standings (the entrants before any): the document's, and while a stage
 * runs a "now" column with each seated entrant's cards home at their table,
 * from the boards the tables' feed brought (under the spectating policy).
 */
function standings(doc, now) {
  if (!doc.standings.length) return entrants(doc, now);
  const live = doc.standings.some((s) => now(s.player));
  const rows = doc.standings.map((s) =>
    h(
      "tr",
      { class: s.removed ? "removed" : "" },
      h("td", {}, String(s.place)),
      h("td", {}, s.name),
      h("td", {}, String(s.points)),
      h("td", {}, String(s.wins)),
      h("td", {}, String(s.home)),
      h("td", {}, clock(Number(s.time))),
      ...arenaCells(doc, s),
      live ? h("td", { class: "now" }, nowText(now(s.player))) : null,
    ),
  );
  return h(
    "section",
    { class: "tournament-standings" },
    h("h2", {}, doc.status === "finished" ? "Final standings" : "Standings"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "standings" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["#", "entrant", "points", "wins", "home", "time"]
              .concat(doc.format === "arena" ? ["races", "streak"] : [], live ? ["now"] : [])
              .filter(Boolean)
              .map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h("tbody", {}, rows),
      ),
    ),
  );
}

/** The race each match of the bracket is playing now: "round:match" → race id. */
function racingMatches(doc) {
  const racing = new Map();
  for (const stage of doc.stages.filter((s) => s.status === "running"))
    for (const race of stage.races)
      if (race.match !== null && race.match !== undefined)
        racing.set(`${stage.round}:${race.match}`, race.race);
  return racing;
}

function bracket(doc, nameOf) {
  if (!doc.bracket?.length) return null;
  const racing = racingMatches(doc);
  const rounds = doc.bracket.map((matches, r) =>
    h(
      "ol",
      { class: "bracket-round", "aria-label": `round ${r + 1}` },
      matches.map((m, i) =>
        h(
          "li",
          { class: racing.has(`${r + 1}:${i}`) ? "match live" : "match" },
          [m.a, m.b].map((p, side) =>
            h(
              "div",
              { class: p && p === m.winner ? "side winner" : "side" },
              h("span", {}, nameOf(p)),
              h("span", { class: "wins" }, String(m.wins?.[side] ?? 0)),
            ),
          ),
          m.forfeit ? h("div", { class: "quiet" }, "forfeit") : null,
          racing.has(`${r + 1}:${i}`)
            ? h("a", { class: "watch", href: `/race/${racing.get(`${r + 1}:${i}`)}` }, "racing now")
            : null,
        ),
      ),
    ),
  );
  return h(
    "section",
    { class: "bracket" },
    h("h2", {}, "Bracket"),
    doc.champion ? h("p", { class: "champion" }, `Champion: ${nameOf(doc.champion)}`) : null,
    h("div", { class: "bracket-rounds" }, rounds),
  );
}

function schedule(doc, now) {
  if (doc.format === "arena") return arenaSchedule(doc, now);
  const played = doc.stages.filter((s) => s.status === "done").length;
  const planned =
    doc.format === "rounds"
      ? ` of ${Number(doc.rounds)} rounds`
      : played === 1
        ? " race"
        : " races";
  let next = "";
  if (doc.status === "paused")
    next = "Paused by the host: the stage under way finishes, no new one starts.";
  else if (doc.next_at)
    next = `Break: the next round starts in ${clock(Number(doc.next_at) - now)}.`;
  else if (doc.status === "open")
    next = `Waiting for the host to start (${doc.entrants.length} entrants).`;
  else if (doc.status === "running") next = "A round is under way.";
  else next = `The tournament is ${doc.status}.`;
  return h(
    "section",
    { class: "schedule" },
    h("p", {}, `${played}${planned} played. `, h("span", { class: "next" }, next)),
  );
}

/** An arena's races over, newest first: each its own deal, places and points. */
function arenaRaces(doc, nameOf) {
  const done = doc.stages.filter((s) => s.status !== "running").reverse();
  if (!done.length) return null;
  return h(
    "section",
    { class: "stages arena-races" },
    h("h2", {}, `Races played (${done.length})`),
    h(
      "ol",
      { reversed: true },
      done.map((stage) =>
        h(
          "li",
          {},
          h("a", { href: `/race/${stage.races[0].race}`, class: "stage-race" }, `Race ${stage.n}`),
          ` · ${variantTitle(stage.variant)}: `,
          Object.entries(stage.results ?? {})
            .sort((a, b) => a[1].place - b[1].place)
            .map(([p, r]) => `${r.place}. ${nameOf(p)} (${r.points})`)
            .join(" · "),
        ),
      ),
    ),
  );
}

function pastStages(doc, nameOf) {
  if (doc.format === "arena") return arenaRaces(doc, nameOf);
  const done = doc.stages.filter((s) => s.status !== "running");
  if (!done.length) return null;
  return h(
    "section",
    { class: "stages" },
    h("h2", {}, "Rounds played"),
    h(
      "ol",
      {},
      done.map((stage) =>
        h(
          "li",
          {},
          `Round ${stage.round}${doc.format === "knockout" ? `, game ${stage.game}` : ""}`,
          ` · ${variantTitle(stage.variant)} · ${stage.status}: `,
          stage.races.map((race) =>
            h("a", { href: `/race/${race.race}`, class: "stage-race" }, `table ${race.table}`),
          ),
          " ",
          Object.entries(stage.results ?? {})
            .sort((a, b) => a[1].place - b[1].place)
            .map(([p, r]) => `${r.place}. ${nameOf(p)} (${r.points})`)
            .join(" · "),
        ),
      ),
    ),
  );
}

export async function showTournament(wire, main, stop, key) {
  let doc = null;
  // The standings' "now" column follows the tables' boards, redrawn at most once a frame.
  let queued = false;
  const redrawStandings = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      const shown = main.querySelector(".tournament-standings, .entrants");
      if (doc && shown) shown.replaceWith(standings(doc, viewNow));
    });
  };
  const live = new LiveTables(redrawStandings, wire.welcome);
  const viewNow = (player) => live.viewOf(player);
  stop.push(() => live.close());
  const draw = () => {
    const nameOf = names(doc);
    live.follow(doc);
    const now = Date.now() / 1000;
    document.title = `${doc.name} · Ballroom`;
    fill(
      main,
      h("h1", {}, `${doc.name} `, h("span", { class: "code" }, doc.code)),
      h(
        "p",
        { class: "status" },
        [
          doc.status,
          doc.format,
          doc.variants.map(variantTitle).join(", "),
          `hosted by ${doc.host_name}`,
        ].join(" · "),
      ),
      schedule(doc, now),
      live.section(doc, nameOf),
      bracket(doc, nameOf),
      standings(doc, viewNow),
      pastStages(doc, nameOf),
    );
  };
  stop.push(
    wire.on("tournament", (m) => {
      if (!doc || m.tournament.id !== doc.id) return;
      doc = m.tournament;
      draw();
    }),
  );
  let reply;
  try {
    reply = await wire.request({ t: "watch_tournament", code: key });
  } catch {
    reply = await wire.request({ t: "watch_tournament", tournament: key });
  }
  doc = reply.tournament;
  draw();
  const tick = () =>
    (doc?.next_at || doc?.ends_at) &&
    main.querySelector(".schedule")?.replaceWith(schedule(doc, Date.now() / 1000));
  const timer = setInterval(tick, 1000);
  stop.push(() => clearInterval(timer));
}
