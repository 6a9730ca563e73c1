// A practice opponent run by the page itself, as the terminal client runs its
// bots (client/bot.py): a second connection with its own guest session, which
// joins the race by its code, says it is ready and plays from nothing but what
// the server sends a racer (the layout, its view, the legal moves). The server
// has no bots of its own. Levels, as the terminal client's:
//   random: any legal move;
//   greedy: cards home and swaps before dealing (protocol/policy.py's ranking);
//   expert: the server's expert hint (a determinized search from the bot's own
//           view: it never sees the stock), greedy when the hint has no move;
//   solver: the server's hint (practice races only: only the server knows the
//           stock's order), greedy when the hint has no move.
// The bot lives as long as the page: closing the tab leaves it away, and the
// server resigns it after the race's grace.

import { go } from "/assets/js/dom.js";
import { parseMove } from "/assets/js/picker.js";
import { Wire, nodeUrl } from "/assets/js/wire.js";

export const LEVELS = ["greedy", "random", "expert", "solver"];

/** Moves a second the page's bot may make (the server's own pace limit is far above). */
export const SPEEDS = [0.5, 1, 1.5, 3, 6];

const SCORE = {
  swap: 90,
  discard: 80,
  space: 70,
  home: 50,
  deal: 2,
  "deal-reversed": 1,
  redeal: 0,
};

/** How much the greedy level likes `text` on `view` (only the order matters). */
function greedyScore(roles, view, text) {
  const move = parseMove(text);
  if (!move) return -1;
  if (move.kind !== "move") return SCORE[move.kind] ?? 0;
  if (move.dst === "x") return SCORE.discard;
  const size = (pile) => (view.piles?.[pile] ?? []).length;
  const role = roles.get(move.src);
  const below = size(move.src) - 1;
  let uncovers = 0.5;
  if (role === "tableau" || role === "depot") uncovers = Math.min(below, 20) / 2;
  else if (role === "parade") uncovers = 5;
  else if (role === "waste") uncovers = 1 + Math.min(below, 20) / 40;
  if (roles.get(move.dst) === "parade" && !size(move.dst)) return SCORE.space + uncovers / 100;
  return SCORE.home + uncovers + size(move.dst) / 100;
}

export class PageBot {
  /** A bot of `level` making `speed` moves a second. */
  constructor(level, speed = 1.5) {
    this.level = LEVELS.includes(level) ? level : "greedy";
    this.speed = speed;
    this.pause = 1000 / speed;
    this.wire = new Wire(nodeUrl(location));
    this.stopped = false;
    this.race = null;
  }

  /** Joins the race with join code `code`, ready; resolves once the server agreed. */
  async join(code) {
    await this.wire.open({ name: `Bot · ${this.level}` });
    const joined = await this.wire.request({ t: "join_race", code });
    this.race = joined.race.id;
    this.wire.on("race_started", (m) => m.race === this.race && this.play(m));
    this.wire.on("race_finished", (m) => m.race === this.race && this.stop());
    await this.wire.request({ t: "ready", race: this.race, ready: true });
    return joined.race;
  }

  async choose(roles, view, legal) {
    if (this.level === "random") return legal[Math.floor(Math.random() * legal.length)];
    if (this.level === "solver" || this.level === "expert") {
      const request = { t: "hint", race: this.race };
      if (this.level === "expert") request.level = "expert";
      try {
        const hinted = await this.wire.request(request);
        if (hinted.move && legal.includes(hinted.move)) return hinted.move;
      } catch {
        // Not a practice race, or no line found: play greedy.
      }
    }
    return legal.reduce((best, text) =>
      greedyScore(roles, view, text) > greedyScore(roles, view, best) ? text : best,
    );
  }

  async play(started) {
    const roles = new Map(started.layout.piles.map((p) => [p.id, p.role]));
    let { view, legal } = started;
    while (!this.stopped && legal.length) {
      await new Promise((resume) => setTimeout(resume, this.pause));
      if (this.stopped) return;
      const move = await this.choose(roles, view, legal);
      try {
        const moved = await this.wire.request({
          t: "move",
          race: this.race,
          seq: Number(view.moves),
          move,
        });
        ({ view, legal } = moved);
      } catch (error) {
        if (error.code === "closed" || error.code === "race_over") return;
        const board = await this.wire.request({ t: "resume", race: this.race, since: 0 });
        ({ view, legal } = board);
      }
    }
  }

  /** Resigns (the person ended the practice): the results come at once. */
  async resign() {
    this.stopped = true;
    try {
      await this.wire.request({ t: "resign", race: this.race });
    } catch {
      // Its game was over already: nothing to resign.
    }
  }

  stop() {
    this.stopped = true;
    this.wire.close();
  }
}

/** The page's bots by race id: they outlive the view that started them. */
export const bots = new Map();

/** Creates a practice race against a new bot of `level`, starts it, and opens its board. */
export async function practice(wire, variant, level, speed) {
  const request = {
    t: "create_race",
    variant,
    max_players: 2,
    time_limit: 600,
    spectate: "delayed", // never live by default: it shows the deal
    delay: 30,
    practice: true, // hints for the solver and expert bots; never rated
  };
  // The solver bot shows its worth on a deal it can win.
  if (level === "solver") request.winnable = true;
  const created = await wire.request(request);
  const race = created.race;
  const bot = new PageBot(level, speed);
  bots.set(race.id, bot);
  await bot.join(race.code);
  await wire.request({ t: "start_race", race: race.id });
  go(`/play/${race.id}`);
}
