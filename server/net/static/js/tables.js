// The tables of a tournament's stage under way, each drawn live: every
// racer's board small, the top table's large. Each table is watched as the
// race page watches a race (`spectate`, then `board` pushes), so the race's
// own policy holds here too (live, delayed, after the race): the page shows
// only what the node sends any spectator.
//
// The tables are watched on a connection of their own, one per stage, that
// says hello with the page's own session (its token): the server's rules on
// who may watch what (an entrant never watches their own stage's tables:
// one deal for all) hold for it as for the page, and no guest session is
// opened per stage; a page whose player sits in the stage asks for none. A
// connection follows every race it spectated until it closes (the protocol
// has no "stop watching"), so a fresh one each stage keeps what the node
// holds for this page to the tables racing now, and closing it gives all of
// them back at once. At most MAX_LIVE tables of a stage are watched (the top
// ones); any others are listed as links, so that a large field stays well
// inside the node's limits on one connection (requests per second, its
// outbox) and a phone's patience.

import { drawBoard } from "/assets/js/board.js";
import { variantTitle } from "/assets/js/variants.js";
import { fill, h, nameOf, policyText } from "/assets/js/dom.js";
import { describeMove, markMove } from "/assets/js/moved.js";
import { Wire, nodeUrl } from "/assets/js/wire.js";

/** The most tables one page watches live at once (the rest are links). */
export const MAX_LIVE = 16;
const RETRY_MS = 2000;

/** The races of the stages running in `doc`, each with its stage. */
function runningTables(doc) {
  return doc.stages
    .filter((stage) => stage.status === "running")
    .flatMap((stage) => stage.races.map((race) => ({ ...race, stage })));
}

/**
 * The top table: the one where the best placed entrant in the standings
 * sits (board one, as a chess tournament's leaders play on it), else the
 * lowest numbered.
 */
export function topTable(doc, tables) {
  for (const standing of doc.standings ?? []) {
    const seated = tables.find((t) => t.players.includes(standing.player));
    if (seated) return seated;
  }
  return [...tables].sort((a, b) => Number(a.table) - Number(b.table))[0] ?? null;
}

function waitingText(info) {
  if (!info) return "connecting…";
  if (info.phase === "open" || info.phase === "countdown") return "starting…";
  if (info.phase !== "finished" && info.spectate === "after")
    return "boards are shown once the race is over";
  if (info.phase !== "finished" && info.spectate === "delayed")
    return `boards come ${Number(info.delay)} s behind`;
  if (info.phase === "finished") return "the race is over";
  return "waiting for the first boards";
}

/** One table's watched state and its element. */
class Table {
  constructor(race, featured) {
    this.race = race;
    this.featured = featured;
    this.info = null;
    this.layout = null;
    this.boards = {};
    this.moves = {};
    this.last = {}; // player -> their last move, described (moved.js)
    this.finals = {};
    this.drawn = new Map(); // player -> their board's element, as drawn now
    this.slot = h("div", { class: "table-boards" });
  }

  take(snapshot) {
    this.info = snapshot.race;
    if (snapshot.layout) this.layout = snapshot.layout;
    this.boards = { ...snapshot.boards };
    this.draw();
  }

  /** Says why the table shows no board (a refusal, the page's own stage). */
  say(text) {
    fill(this.slot, h("p", { class: "table-waiting quiet" }, text));
  }

  /** A racer's move came: their board now, and what the move did (marked when drawn). */
  moved(m) {
    const before = this.boards[m.player];
    this.boards[m.player] = m.view;
    this.moves[m.player] = m.move;
    this.last[m.player] = this.layout ? describeMove(this.layout, before, m.view, m.move) : null;
    // Only the mover's board changes: redrawn alone when the others are drawn already.
    const old = this.drawn.get(m.player);
    if (!before || !old?.isConnected) {
      this.draw();
      return;
    }
    const board = this.board(m.player);
    old.replaceWith(board);
    this.drawn.set(m.player, board);
  }

  /** One racer's board as drawn here, their last move marked. */
  board(player) {
    const view = this.finals[player]
      ? { ...this.boards[player], ...this.finals[player] }
      : this.boards[player];
    const last = this.last[player];
    const board = drawBoard(
      this.layout,
      view,
      nameOf(this.info, player),
      last ?? this.moves[player],
    );
    markMove(board, last);
    return board;
  }

  /**
   * Every racer's board again. Moves are marked (their old and new place) but
   * not slid in as on a race's page: a stage's many boards move at once, and
   * the slides cost a page more than the boards.
   */
  draw() {
    const shown = this.race.players.filter((p) => this.boards[p]);
    this.drawn = new Map();
    if (!this.layout || !shown.length) {
      this.say(waitingText(this.info));
      return;
    }
    for (const p of shown) this.drawn.set(p, this.board(p));
    fill(this.slot, [...this.drawn.values()]);
  }
}

export class LiveTables {
  /**
   * `changed` is called whenever a table's boards change; `session` is the
   * page connection's `welcome` (player, name, token), spoken for again.
   */
  constructor(changed = () => {}, session = null) {
    this.changed = changed;
    this.session = session;
    this.key = null; // the races watched now, joined
    this.wire = null;
    this.tables = new Map(); // race id -> Table
    this.stops = [];
    this.closed = false;
    this.over = false; // the tables shown are the last stage's, over
    this.doc = null;
  }

  /** Follows the tables of `doc`'s running stage (a new stage: a new connection). */
  follow(doc) {
    this.doc = doc;
    const running = runningTables(doc);
    // Between stages the last one's tables stay, over, until the next starts: their
    // last boards (and, watched "after the race", their only ones: a stage's results
    // are held until its last table ends) come after the document says it ended.
    const ended = doc.status === "finished" || doc.status === "cancelled";
    this.over = !running.length && this.tables.size > 0 && !ended;
    if (this.over) return;
    const top = topTable(doc, running);
    const ordered = top ? [top, ...running.filter((t) => t !== top)] : running;
    const key = ordered.map((t) => t.race).join(" ");
    if (key === this.key) return;
    this.stop();
    this.key = key;
    this.tables = new Map(ordered.map((t, i) => [t.race, new Table(t, i === 0)]));
    const me = this.session?.player;
    if (me && ordered.some((t) => t.players.includes(me))) {
      for (const table of this.tables.values())
        table.say("this stage's tables are not shown to its entrants (one deal for all)");
      return;
    }
    if (ordered.length) this.watch([...this.tables.values()].slice(0, MAX_LIVE));
  }

  async watch(tables) {
    const wire = new Wire(nodeUrl(location));
    this.wire = wire;
    const mine = (id) => this.wire === wire && this.tables.get(id);
    this.stops.push(
      wire.on("board", (m) => {
        const table = mine(m.race);
        if (!table || !table.info) return;
        table.moved(m);
        this.changed();
      }),
      // A resignation reaches spectators as the racer's progress, as late as a board would.
      wire.on("progress", (m) => {
        const table = mine(m.race);
        if (!table || !table.info || !m.progress?.resigned) return;
        table.finals[m.player] = { ...table.finals[m.player], resigned: true };
        table.draw();
        this.changed();
      }),
      wire.on("spectating", (m) => {
        mine(m.race.id)?.take(m);
        this.changed();
      }),
      wire.on("race_state", (m) => {
        const table = mine(m.race.id);
        if (!table) return;
        table.info = m.race;
        table.draw();
      }),
      wire.on("race_finished", (m) => {
        const table = mine(m.race);
        if (!table || !table.info) return;
        table.info = { ...table.info, phase: "finished" };
        for (const s of m.standings)
          table.finals[s.player] = {
            resigned: s.status === "resigned",
            timeout: s.status === "timeout",
          };
        table.draw();
        this.changed();
        // Watched "after the race", a table gets the results and no board: the boards
        // are public now, so ask for them (once, at this table's end).
        if (!Object.keys(table.boards).length && this.wire === wire)
          wire.request({ t: "spectate", race: m.race }).then(
            (snapshot) => this.wire === wire && (table.take(snapshot), this.changed()),
            () => {}, // the table says the race is over; its page has the boards
          );
      }),
    );
    wire.onstate = () => {
      // Lost, not closed here: watch the same tables again on a fresh connection.
      if (this.wire !== wire || this.closed) return;
      this.key = null;
      setTimeout(() => !this.closed && this.doc && this.follow(this.doc), RETRY_MS);
    };
    for (const table of tables) table.draw();
    const session = this.session;
    try {
      await wire.open(session?.token ? { name: session.name, token: session.token } : {});
    } catch (error) {
      // Lost: retried by onstate. Refused (the session ended meanwhile): said.
      if (error.code !== "closed") for (const table of tables) table.say(error.message);
      return;
    }
    // One at a time: a stage's tables never come as one burst of requests.
    for (const table of tables) {
      if (this.wire !== wire) return;
      try {
        table.take(await wire.request({ t: "spectate", race: table.race.race }));
        this.changed();
      } catch (error) {
        if (error.code === "closed") return; // retried by onstate
        table.say(error.message);
      }
    }
  }

  /** `player`'s board at their table now (null when unseen): the last pushed, as drawn. */
  viewOf(player) {
    for (const table of this.tables.values()) {
      const view = table.boards[player];
      if (view) return table.finals[player] ? { ...view, ...table.finals[player] } : view;
    }
    return null;
  }

  /** The "Racing now" section: the top table large, every other one small. */
  section(doc, nameOfPlayer) {
    const tables = [...this.tables.values()];
    if (!tables.length) return null;
    const live = new Set(tables.slice(0, MAX_LIVE));
    const item = (table) => {
      const { race, stage } = table.race;
      const spectate = table.info ? policyText(table.info.spectate, table.info.delay) : null;
      return h(
        "li",
        {
          class: table.featured ? "table featured" : "table",
          "data-race": race,
          "aria-label": `table ${table.race.table}`,
        },
        h(
          "div",
          { class: "table-head" },
          table.featured ? h("span", { class: "top-table" }, "top table") : null,
          h(
            "a",
            { href: `/race/${race}` },
            `Table ${table.race.table}: ${table.race.players.map(nameOfPlayer).join(" vs ")}`,
          ),
          h(
            "span",
            { class: "meta" },
            ` · ${variantTitle(stage.variant)}`,
            doc.format === "knockout" ? ` · game ${stage.game}` : "",
            spectate ? ` · ${spectate}` : "",
          ),
        ),
        live.has(table) ? table.slot : null,
      );
    };
    const [first, ...rest] = tables;
    const round = first.race.stage;
    return h(
      "section",
      { class: "tables" },
      h("h2", {}, this.over ? `Round ${round.round}: over` : `Racing now: round ${round.round}`),
      h(
        "ul",
        { class: "table-list", "aria-label": `round ${round.round}, game ${round.game}` },
        item(first),
        rest.map(item),
      ),
    );
  }

  stop() {
    for (const stop of this.stops) stop();
    this.stops = [];
    if (this.wire) {
      const wire = this.wire;
      this.wire = null;
      wire.onstate = () => {};
      wire.close();
    }
  }

  close() {
    this.closed = true;
    this.stop();
  }
}
