// One race, watched as any spectator watches it: the `spectating` snapshot,
// then `board` pushes as racers move, under the race's own policy (live,
// delayed, after), then `race_finished` with the seed, checked here, and the
// post-race analysis (`race_analysis`) that follows it. Above the boards, who
// leads and each racer's rating, clock and cards home (headline.js), and how
// many watch (`spectators`); on each board, its last move in words beside its
// notation, its old and new places marked and the card sliding in (moved.js).

import { drawBoard } from "/assets/js/board.js";
import { checkCommitment } from "/assets/js/commit.js";
import { clock, fill, h, nameOf, policyText, raceName, tournamentLink } from "/assets/js/dom.js";
import { ended, isAccount, leadText, racerLines, ratingOf } from "/assets/js/headline.js";
import { animateMove, describeMove, markMove } from "/assets/js/moved.js";

/** A race id from a link's last part, which may also be the race's join code. */
async function resolveRace(wire, key) {
  const listed = await wire.request({ t: "list_races" });
  const byCode = listed.races.find((r) => String(r.code).toUpperCase() === key.toUpperCase());
  return byCode ? byCode.id : key;
}

/** What the race's spectating policy means for this page, or null when it shows all at once. */
function policyNote(info) {
  if (info.phase === "finished" || info.spectate === "live") return null;
  if (info.spectate === "after") return "Boards are shown once the race is over.";
  return `Moves are shown ${Number(info.delay)} s after they are made.`;
}

function waitingText(info) {
  if (info.phase === "open") return "The race has not started yet: boards appear at the start.";
  return policyNote(info) ? "No boards yet." : "Waiting for the first boards.";
}

function clockText(info, now) {
  if (info.phase === "finished") return "The race is over.";
  if (info.phase === "open")
    return `waiting for racers (${info.players.length}/${info.max_players})`;
  // The countdown's end is pushed (race_state), but the page's own clock need not wait for it.
  if (info.phase === "countdown" && !(Number(info.started_at) <= now)) return "starting";
  return `${clock(Number(info.ends_at) - now)} left`;
}

/** A rated racer's rating after the race and its change: "1512 (+12)", "1512? (−3)". */
function ratingText(s) {
  if (s.rating === undefined || s.rating === null) return "";
  const change = Number(s.change ?? 0);
  const signed = change > 0 ? `+${change}` : change < 0 ? `−${-change}` : "±0";
  return `${Number(s.rating)}${s.provisional ? "?" : ""} (${signed})`;
}

export function standingsTable(standings, replayOf) {
  // Ratings show only in a rated race (accounts' entries carry them).
  const rated = standings.some((s) => s.rating !== undefined && s.rating !== null);
  const table = h(
    "table",
    { class: "standings" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["#", "racer", "status", "home", "moves", "time", rated ? "rating" : null, ""]
          .filter((c) => c !== null)
          .map((c) => h("th", { scope: "col" }, c)),
      ),
    ),
    h(
      "tbody",
      {},
      standings.map((s) =>
        h(
          "tr",
          {},
          h("td", {}, String(s.place)),
          h("td", {}, s.name),
          h("td", {}, s.status),
          h("td", {}, String(s.home)),
          h("td", {}, String(s.moves)),
          h("td", {}, clock(Number(s.time))),
          rated ? h("td", { class: "rating" }, ratingText(s)) : null,
          h("td", {}, replayOf ? h("a", { href: replayOf(s.player) }, "replay") : null),
        ),
      ),
    ),
  );
  return h("div", { class: "table-wrap" }, table);
}

/** One racer's post-race analysis in words, as the terminal client says it. */
export function analysisText(racer, par) {
  const words =
    {
      lost: `winnable until move ${racer.move} (${racer.text})`,
      won: "won: winnable throughout",
      winnable: "still winnable after the last move",
      unwinnable: "the deal was not winnable",
    }[racer.verdict] ?? "winnability unknown (the solver ran out of time)";
  return par == null ? words : `${words}; par ${par} moves`;
}

/** The post-race analysis (`race_analysis`, or `analysis` in the results): a line per racer. */
export function analysisBlock(info, analysis) {
  return h(
    "section",
    { class: "analysis", "aria-live": "polite" },
    h("h3", {}, "Analysis (the solver, knowing the stock)"),
    h(
      "ul",
      {},
      analysis.racers.map((r) =>
        h("li", {}, `${nameOf(info, r.player)}: ${analysisText(r, analysis.par)}`),
      ),
    ),
  );
}

export async function resultsBlock(info, results) {
  // The commitment to hold the seed to is the one published at the start.
  const published = info.commitment ?? results.commitment;
  const check = await checkCommitment(
    info.variant,
    results.deal_version,
    results.seed,
    info.id,
    published,
  );
  const ok = check.ok && String(results.commitment) === String(published);
  const verdict = ok
    ? `✓ the seed matches the commitment published at the start`
    : `✗ the seed does not match the commitment published at the start`;
  return h(
    "section",
    { class: "results", "aria-live": "polite" },
    h("h2", {}, "Results"),
    standingsTable(results.standings, (player) => `/replay/${info.id}/${player}`),
    results.analysis ? analysisBlock(info, results.analysis) : null,
    h(
      "dl",
      { class: "fair" },
      h("dt", {}, "seed"),
      h("dd", { class: "seed" }, String(results.seed)),
      h("dt", {}, "commitment"),
      h("dd", { class: "hash" }, String(published)),
      h("dt", {}, "check"),
      h(
        "dd",
        { class: ok ? "commit-check good" : "commit-check bad", "data-ok": String(ok) },
        verdict,
      ),
      h("dt", {}, "how"),
      h("dd", { class: "quiet" }, `SHA-256 of “${check.text}”, computed by ${check.by}`),
      results.draw == null ? null : h("dt", {}, "winnable"),
      results.draw == null
        ? null
        : h(
            "dd",
            { class: "draw" },
            results.line
              ? `candidate ${results.pick} of the draw ${results.draw}: the first the solver ` +
                  "proves winnable (check it with ballroom winnable)"
              : `candidate 0 of the draw ${results.draw}: a plain deal, none proved winnable in time`,
          ),
    ),
  );
}

export async function showRace(wire, main, stop, key) {
  const id = await resolveRace(wire, key);
  const state = {
    info: null,
    layout: null,
    boards: {},
    moves: {},
    finals: {},
    last: {}, // player -> their last move as shown (moved.js)
    drawn: {}, // player -> their board's element
    finishedAt: {}, // player -> when (server's clock) their board first showed the game over
    ratings: {}, // player -> rating text, for accounts
    asked: new Set(), // players whose profile was asked for
    standings: null,
    spectators: null,
  };
  // The server's clock, as the welcome gave it: a spectator's own clock may be off.
  const skew = wire.welcome?.now ? Number(wire.welcome.now) * 1000 - Date.now() : 0;
  const now = () => (Date.now() + skew) / 1000;
  const title = h("h1", {});
  const partOf = h("p", { class: "tournament-of" });
  const status = h("p", { class: "status" });
  const clockLine = h("p", { class: "clock", "aria-live": "off" });
  const note = h("p", { class: "policy-note" });
  const lead = h("p", { class: "lead", "aria-live": "polite" });
  const watching = h("p", { class: "spectators", title: "spectators watching now" });
  const lines = h("div", { class: "racers-now" });
  const headline = h(
    "section",
    { class: "headline", "aria-label": "the race now" },
    lead,
    watching,
    lines,
  );
  const boards = h("div", { class: "boards" });
  const results = h("div", {});
  fill(main, title, partOf, status, clockLine, note, headline, boards, results);

  const drawHeader = () => {
    const info = state.info;
    const name = state.layout?.title ?? info.variant;
    document.title = `${name} · ${raceName(info)} · Ballroom`;
    // A table has no join code: its tournament names it, and its page is a link away.
    fill(
      title,
      `${name} `,
      info.code
        ? h("span", { class: "code" }, info.code)
        : h("span", { class: "kind" }, raceName(info)),
    );
    const tournament = tournamentLink(info);
    fill(partOf, tournament ? ["a table of ", tournament] : null);
    partOf.hidden = !tournament;
    fill(
      status,
      [
        info.phase,
        info.players.map((p) => nameOf(info, p)).join(" vs "),
        `watching ${policyText(info.spectate, info.delay)}`,
      ].join(" · "),
      info.deal === null || info.deal === undefined || info.deal === ""
        ? ""
        : ` · practice deal ${String(info.deal)}`,
    );
    fill(clockLine, clockText(info, now()));
    fill(note, policyNote(info));
    note.hidden = !policyNote(info);
    askRatings();
  };
  /** Each view as shown: a resignation or the clock ends a game without a new board. */
  const shown = (p) =>
    state.finals[p] ? { ...state.boards[p], ...state.finals[p] } : state.boards[p];
  const drawHeadline = () => {
    if (!state.info) return;
    const views = Object.fromEntries(
      state.info.players.filter((p) => state.boards[p]).map((p) => [p, shown(p)]),
    );
    const text = leadText(state.info, views, state.standings);
    fill(lead, text);
    lead.hidden = !text;
    fill(lines, racerLines({ ...state, boards: views }, now()));
    const count = state.spectators;
    fill(watching, count === null ? "" : `${count} watching`);
    watching.hidden = count === null;
  };
  const drawOne = (p) => {
    const last = state.last[p];
    const drawn = drawBoard(state.layout, shown(p), nameOf(state.info, p), last ?? state.moves[p]);
    markMove(drawn, last);
    state.drawn[p] = drawn;
    return drawn;
  };
  const drawBoards = () => {
    drawHeadline();
    const players = state.info.players.filter((p) => state.boards[p]);
    if (!state.layout || !players.length) {
      fill(boards, h("p", { class: "waiting" }, waitingText(state.info)));
      return;
    }
    fill(boards, players.map(drawOne));
  };
  /** One racer's board again, after their move: only it changes, and its move slides in. */
  const redrawBoard = (p) => {
    const old = state.drawn[p];
    if (!state.layout || !old || !old.isConnected) {
      drawBoards();
    } else {
      drawHeadline();
      old.replaceWith(drawOne(p));
    }
    if (state.drawn[p]?.isConnected) animateMove(state.drawn[p], state.last[p]);
  };
  /** When the page saw a racer's game end, on the server's clock as of the boards shown. */
  const noteEnd = (p, view) => {
    if (state.finishedAt[p] || !ended(view)) return;
    const delay = state.info.spectate === "delayed" ? Number(state.info.delay) : 0;
    state.finishedAt[p] = now() - delay;
  };
  const askRatings = () => {
    for (const p of state.info.players) {
      if (state.asked.has(p) || !isAccount(p)) continue;
      state.asked.add(p);
      wire.request({ t: "get_profile", player: p }).then(
        (reply) => {
          const rating = ratingOf(reply.profile, state.info.variant);
          if (rating) state.ratings[p] = rating;
          drawHeadline();
        },
        () => {}, // no profile to show: the line says "unrated"
      );
    }
  };
  const take = (snapshot) => {
    state.info = snapshot.race;
    if (snapshot.layout) state.layout = snapshot.layout;
    state.boards = { ...snapshot.boards };
    drawHeader();
    drawBoards();
  };

  stop.push(
    wire.on("board", (m) => {
      if (m.race !== id || !state.info) return;
      const before = state.boards[m.player];
      state.boards[m.player] = m.view;
      state.moves[m.player] = m.move;
      state.last[m.player] = state.layout
        ? describeMove(state.layout, before, m.view, m.move)
        : null;
      noteEnd(m.player, m.view);
      redrawBoard(m.player);
    }),
    // A resignation reaches spectators as the racer's progress, as late as a board would.
    wire.on("progress", (m) => {
      if (m.race !== id || !state.info || !m.progress.resigned) return;
      state.finals[m.player] = { resigned: true };
      noteEnd(m.player, state.finals[m.player]);
      drawBoards();
    }),
    wire.on("spectators", (m) => {
      if (m.race !== id) return;
      state.spectators = Number(m.count);
      drawHeadline();
    }),
    wire.on("spectating", (m) => m.race.id === id && take(m)),
    wire.on("race_state", (m) => {
      if (m.race.id !== id) return;
      state.info = m.race;
      drawHeader();
      drawBoards();
    }),
    wire.on("race_finished", async (m) => {
      if (m.race !== id || !state.info) return;
      state.info = { ...state.info, phase: "finished" };
      // A resignation or the clock ends a game without a move: the standings say how.
      for (const s of m.standings)
        state.finals[s.player] = {
          resigned: s.status === "resigned",
          timeout: s.status === "timeout",
        };
      state.standings = m.standings;
      drawHeader();
      drawBoards();
      // The analysis may have come with the results (read later) or come after them.
      state.results = { ...m, analysis: m.analysis ?? state.results?.analysis };
      fill(results, await resultsBlock(state.info, state.results));
    }),
    wire.on("race_analysis", async (m) => {
      if (m.race !== id || !state.info) return;
      state.results = { ...state.results, analysis: m.analysis };
      if (state.results.standings) fill(results, await resultsBlock(state.info, state.results));
    }),
  );
  take(await wire.request({ t: "spectate", race: id }));
  const timer = setInterval(() => {
    if (!state.info) return;
    fill(clockLine, clockText(state.info, now()));
    drawHeadline();
  }, 1000);
  stop.push(() => clearInterval(timer));
}
