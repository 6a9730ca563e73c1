// /play/RACE: one race, as one of its racers. The page draws what the server
// sends and sends what the racer chooses; the rules stay the server's:
// - the legal moves are the server's `legal` list (picker.js reads which
//   piles they join, to highlight them);
// - a move is drawn as pending (marked, the board unchanged) until the
//   server's `moved` answers it; a refusal leaves the board as it was and
//   shows the server's own reason;
// - a second tab (or terminal) of the same player that takes the seat is
//   told by the server (`seat_taken`): this tab stops offering moves and can
//   take the seat back (`resume`).
//
// Pointer: click a card (or its pile), then the pile it goes to; the stock
// deals. Keys (as the terminal client's where they fit): Tab to a pile,
// Enter or Space picks and drops; d deals, D deals in reverse, f plays every
// card it can home, n shows the next legal move and Enter plays it, Escape
// lets go, x twice resigns, h asks for a hint in a practice race.

import { bots, practice } from "/assets/js/bot.js";
import { drawBoard, progressText } from "/assets/js/board.js";
import { clock, fill, go, h, nameOf, raceName } from "/assets/js/dom.js";
import { followTables } from "/assets/js/entrant.js";
import { MovePicker, parseMove } from "/assets/js/picker.js";
import { resultsBlock } from "/assets/js/race.js";

/** Race infos the page was given with a `matched` (a quick race, a rematch, the daily deal). */
export const knownRaces = new Map();

/** The race's info, which a `resume` reply with a board lacks: known, listed, or null. */
async function infoOf(wire, id) {
  if (knownRaces.has(id)) return knownRaces.get(id);
  try {
    const listed = await wire.request({ t: "list_races" });
    return listed.races.find((r) => r.id === id) ?? null;
  } catch {
    return null; // a bare info will do until a push says more
  }
}

/** The piles a move joins (for marking it pending or highlighted). */
function pilesOf(picker, text) {
  const move = parseMove(text);
  if (!move) return [];
  if (move.kind === "move") return [move.src, move.dst];
  if (move.kind === "swap") return move.piles;
  return picker.stock ? [picker.stock] : [];
}

export async function showGame(wire, main, stop, id) {
  const me = wire.welcome.player;
  const state = {
    info: null,
    layout: null,
    view: null,
    picker: null,
    picked: null, // {pile, index}
    highlight: null, // a legal move text shown by n, played by Enter
    pending: null, // the move text sent and not answered yet
    finishing: false,
    seatLost: false,
    resignArmed: false,
    rematch: null, // how many accepted a rematch, in words
    others: {}, // player id -> progress
    since: 0, // the highest event heard about this race, `moved` aside
    endsAt: null,
    finished: false,
  };
  const title = h("h1", {});
  const status = h("p", { class: "status" });
  const clockLine = h("p", { class: "clock", "aria-live": "off" });
  const notice = h("p", { class: "notice", role: "status", "aria-live": "polite" });
  const controls = h("div", { class: "controls play-controls" });
  const board = h("div", { class: "boards single" });
  const racers = h("ul", { class: "racers-progress" });
  const results = h("div", {});
  fill(main, title, status, clockLine, notice, controls, board, racers, results);
  const say = (...text) => fill(notice, ...text);

  const button = (label, className, action) =>
    h("button", { type: "button", class: className, onclick: action }, label);

  const drawHeader = () => {
    const info = state.info;
    const name = state.layout?.title ?? info.variant;
    document.title = `${name} · ${raceName(info)} · Ballroom`;
    fill(
      title,
      `${name} `,
      info.code
        ? h("span", { class: "code" }, info.code)
        : h("span", { class: "kind" }, raceName(info)),
    );
    const names = info.players.map((p) => {
      const ready = info.phase === "open" && info.ready?.includes(p) ? " ✓" : "";
      return nameOf(info, p) + (p === me ? " (you)" : "") + ready;
    });
    fill(
      status,
      [info.phase, names.join(" vs "), info.practice ? "practice" : null]
        .filter(Boolean)
        .join(" · "),
    );
  };

  const drawControls = () => {
    const info = state.info;
    const parts = [];
    if (state.seatLost) {
      parts.push(button("Take the seat back here", "take-back", takeBack));
    } else if (info.phase === "open") {
      const ready = info.ready?.includes(me);
      if (info.host === me) parts.push(button("Start", "start", startRace));
      parts.push(button(ready ? "Not ready" : "Ready", "ready", () => setReady(!ready)));
      parts.push(button("Leave", "leave", leaveRace));
      if (info.code)
        parts.push(h("span", { class: "quiet" }, `Others join with code ${info.code}`));
    } else if (state.view && !state.finished) {
      const over = !state.picker?.moves.length;
      if (over && bots.has(id)) {
        // A practice is the person's: once their game is over, the results need not wait.
        parts.push(button("End the practice: the bot resigns", "end-practice", endPractice));
      }
      if (!over) {
        parts.push(button("Deal (d)", "deal", () => deal()));
        parts.push(button("Finish (f)", "finish", () => finish()));
        if (info.practice) parts.push(button("Hint (h)", "hint", () => hint()));
        parts.push(
          button(state.resignArmed ? "Resign: sure?" : "Resign (x)", "resign", () => resign()),
        );
      }
    } else if (state.finished) {
      // A rematch needs every racer; the page's bot is gone once a practice ends.
      if (!info.practice && !info.tournament && info.host !== "daily")
        parts.push(
          button(state.rematch ? `Rematch: ${state.rematch}` : "Rematch", "rematch", () =>
            rematch(),
          ),
        );
      if (info.tournament_code)
        parts.push(
          h(
            "a",
            { href: `/play/tournament/${encodeURIComponent(info.tournament_code)}` },
            "Back to the tournament",
          ),
        );
      else if (state.again) {
        const { variant, level, speed } = state.again;
        parts.push(
          button("Practice again", "again", () =>
            practice(wire, variant, level, speed).catch((error) => refused(null, error)),
          ),
        );
        parts.push(h("a", { href: "/play" }, "Other races"));
      } else parts.push(h("a", { href: "/play" }, "Race again"));
    }
    fill(controls, parts);
  };

  const drawBoardNow = () => {
    if (!state.view || !state.layout) {
      const phase = state.info?.phase;
      fill(
        board,
        h(
          "p",
          { class: "waiting" },
          phase === "countdown" ? "Starting…" : "The board comes at the start.",
        ),
      );
      return;
    }
    const picker = state.picker;
    const live = !state.seatLost && !state.finished;
    const marks = {
      sources: live && !state.pending && !state.picked ? picker.sources() : new Set(),
      targets:
        live && state.picked ? picker.targets(state.picked.pile, state.picked.index) : new Set(),
      picked: state.picked,
      pending: state.pending
        ? pilesOf(picker, state.pending)
        : state.highlight
          ? pilesOf(picker, state.highlight)
          : null,
    };
    const drawn = drawBoard(state.layout, state.view, "Your board", null, marks);
    if (state.pending) drawn.classList.add("waiting-server");
    // Redrawing must not take the keyboard's place away: the same pile keeps the focus.
    const focused = document.activeElement?.closest?.(".board.mine .pile")?.dataset.pile;
    fill(board, drawn);
    if (focused) board.querySelector(`.pile[data-pile="${CSS.escape(focused)}"]`)?.focus();
  };

  const drawRacers = () => {
    const info = state.info;
    fill(
      racers,
      (info?.players ?? [])
        .filter((p) => p !== me && state.others[p])
        .map((p) =>
          h("li", { "data-player": p }, `${nameOf(info, p)}: ${progressText(state.others[p])}`),
        ),
    );
  };

  const drawAll = () => {
    if (!state.info?.players) return;
    drawHeader();
    drawControls();
    drawBoardNow();
    drawRacers();
  };

  const tick = () => {
    if (state.finished) fill(clockLine, "The race is over.");
    else if (state.endsAt) fill(clockLine, `${clock(state.endsAt - Date.now() / 1000)} left`);
    else fill(clockLine, "");
  };

  const heard = (message) => {
    if (message.event !== undefined && message.event !== null)
      state.since = Math.max(state.since, Number(message.event));
  };

  const setPosition = (view, legal) => {
    state.view = view;
    state.picker = new MovePicker(state.layout, legal);
    state.picked = null;
    state.highlight = null;
    if (!state.picker.moves.length && !state.finished) {
      // A daily deal's results open only once the day is revealed (docs/protocol.md).
      const then =
        state.info?.host === "daily"
          ? "The results open when the day's deal is revealed, after the next UTC midnight."
          : "The results follow.";
      say(
        view.won
          ? `You won: all ${view.target} cards home. ${then}`
          : `No legal move left, with ${view.home}/${view.target} home. ${then}`,
      );
    }
    drawAll();
  };

  const started = (message) => {
    // A copy older than what we have (a start repeated by `resume`) is ignored.
    if (state.view && Number(message.view.moves) < Number(state.view.moves)) return;
    state.layout = message.layout;
    state.endsAt = Number(message.ends_at);
    state.info = { ...state.info, phase: "running", commitment: message.commitment };
    setPosition(message.view, message.legal);
    tick();
  };

  const refused = (text, error) => {
    state.finishing = false;
    const reason = String(error.message);
    say(`✗ ${text && !reason.startsWith(text) ? `${text}: ` : ""}${reason}`);
  };

  const seatTaken = () => {
    state.seatLost = true;
    state.picked = null;
    state.highlight = null;
    state.finishing = false;
    say("✗ This race continues in another tab or window: moves here are off.");
    drawAll();
  };

  const send = async (text) => {
    state.resignArmed = false;
    if (state.seatLost) return seatTaken();
    if (state.pending) return say("Waiting for the server's answer to the last move…");
    if (!state.picker?.moves.length || state.finished) return;
    state.pending = text;
    state.picked = null;
    state.highlight = null;
    say(`${text} …`);
    drawAll();
    try {
      const moved = await wire.request({
        t: "move",
        race: id,
        seq: Number(state.view.moves),
        move: text,
      });
      state.pending = null;
      say(`${moved.move} ✓`);
      setPosition(moved.view, moved.legal);
      if (state.finishing) finishStep();
    } catch (error) {
      state.pending = null;
      if (error.code === "seat_taken") return seatTaken();
      refused(text, error);
      drawAll();
      if (error.code === "bad_sequence" || error.code === "state_lost") resync();
    }
  };

  const choose = (pile, index, redraw = drawAll) => {
    if (state.seatLost) return seatTaken();
    if (state.pending || !state.picker?.moves.length || state.finished) return;
    state.highlight = null;
    const picker = state.picker;
    if (!picker.indexed(pile)) index = null;
    if (!state.picked) {
      if (pile === picker.stock) return deal();
      state.picked = { pile, index };
      const count = picker.fromPile(pile, index).length;
      say(
        count
          ? `${pile}: ${count} legal move${count === 1 ? "" : "s"}; pick where it goes`
          : `${pile}: no legal move from here now; drop it on a pile to hear why`,
      );
      redraw();
      return;
    }
    const { pile: source, index: sourceIndex } = state.picked;
    if (pile === source) {
      state.picked = index !== null && index !== sourceIndex ? { pile, index } : null;
      drawAll();
      return;
    }
    send(picker.attempt(source, sourceIndex, pile));
  };

  const deal = () => send(state.picker?.action("deal", "redeal") ?? "deal");

  const finishStep = () => {
    const next = state.picker.homeward()[0];
    if (next && state.finishing) send(next.text);
    else {
      state.finishing = false;
      if (state.picker.moves.length) say("Finish: no other card can go home now.");
    }
  };
  const finish = () => {
    if (state.pending || state.seatLost) return;
    state.finishing = true;
    finishStep();
  };

  const cycle = () => {
    const choices = state.picked
      ? state.picker.fromPile(state.picked.pile, state.picked.index)
      : state.picker.moves;
    if (!choices.length) return say("No legal move.");
    const at = choices.findIndex((m) => m.text === state.highlight);
    state.highlight = choices[(at + 1) % choices.length].text;
    say(
      `Move ${((at + 1) % choices.length) + 1}/${choices.length}: ${state.highlight} (Enter plays it)`,
    );
    drawAll();
  };

  const hint = async () => {
    try {
      const hinted = await wire.request({ t: "hint", race: id });
      if (hinted.move && state.picker.texts.includes(hinted.move)) {
        state.highlight = hinted.move;
        say(`Hint: ${hinted.move} (${hinted.outcome}; Enter plays it)`);
        drawAll();
      } else say(`Hint: ${hinted.outcome === "lost" ? "no line wins from here" : "none"}`);
    } catch (error) {
      refused(null, error);
    }
  };

  const resign = async () => {
    if (!state.resignArmed) {
      state.resignArmed = true;
      say("Press Resign (or x) again to resign: you keep the cards home so far.");
      drawControls();
      return;
    }
    state.resignArmed = false;
    try {
      await wire.request({ t: "resign", race: id });
      state.picker = new MovePicker(state.layout, []);
      state.view = { ...state.view, resigned: true };
      say("You resigned. The results follow.");
      drawAll();
    } catch (error) {
      refused(null, error);
    }
  };

  const endPractice = async () => {
    say("The bot resigns; the results follow.");
    await bots.get(id)?.resign();
  };

  const rematch = async () => {
    try {
      const said = await wire.request({ t: "rematch", race: id });
      state.rematch = `${Number(said.accepted)}/${Number(said.racers)} accepted`;
      drawControls();
    } catch (error) {
      refused(null, error);
    }
  };

  const lobbyRequest = async (message) => {
    try {
      state.info = (await wire.request(message)).race;
      drawAll();
    } catch (error) {
      refused(null, error);
    }
  };
  const startRace = () => lobbyRequest({ t: "start_race", race: id });
  const setReady = (ready) => lobbyRequest({ t: "ready", race: id, ready });
  const leaveRace = async () => {
    await lobbyRequest({ t: "leave_race", race: id });
    go("/play");
  };

  const takeReply = (reply) => {
    if (reply.t === "race_started") {
      const bare = { id, variant: reply.layout.variant, players: [me], names: {} };
      if (!state.info?.players) state.info = { ...bare, ...state.info };
      started(reply);
    } else if (reply.t === "race") {
      state.info = reply.race;
      drawAll();
    }
  };

  const resync = async () => {
    try {
      takeReply(await wire.request({ t: "resume", race: id, since: state.since }));
    } catch (error) {
      refused(null, error);
    }
  };

  const takeBack = async () => {
    state.seatLost = false;
    say("Taking the seat back…");
    await resync();
    if (!state.seatLost) say("The race continues here.");
    drawAll();
  };

  // -- the server's pushes ---------------------------------------------------
  // Pushes before the reply to the first `resume` are left out: it repeats every event.
  let resumed = false;
  const ours = (m) => resumed && (typeof m.race === "string" ? m.race : m.race?.id) === id;
  stop.push(
    wire.on("race_state", (m) => {
      if (!ours(m)) return;
      heard(m);
      // `resume` from 0 repeats the lobby's events: once racing, their phase is old news.
      const phase = state.view && m.race.phase !== "finished" ? "running" : m.race.phase;
      state.info = { ...m.race, phase };
      drawAll();
    }),
    wire.on("countdown", (m) => {
      if (!ours(m)) return;
      heard(m);
      if (state.view) return; // repeated by `resume`: the race is on already
      state.info = { ...state.info, phase: "countdown" };
      say(`Starting in ${Number(m.seconds)} s…`);
      drawAll();
    }),
    wire.on("race_started", (m) => {
      if (!ours(m)) return;
      heard(m);
      if (!state.view) say("Go!");
      started(m);
    }),
    wire.on("progress", (m) => {
      if (!ours(m) || m.player === me) return;
      heard(m);
      state.others[m.player] = m.progress;
      drawRacers();
    }),
    wire.on("presence", (m) => ours(m) && heard(m)),
    wire.on("seat_taken", (m) => {
      if (!ours(m)) return;
      heard(m);
      seatTaken();
    }),
    wire.on("rewound", (m) => {
      if (!ours(m)) return;
      state.since = Number(m.event);
      if (m.view && m.legal) setPosition(m.view, m.legal);
      say("✗ The server lost the latest moves; play on from here.");
    }),
    wire.on("rematch_offer", (m) => {
      if (!ours(m)) return;
      heard(m);
      state.rematch = `${Number(m.accepted)}/${Number(m.racers)} accepted`;
      say(`${m.name} offers a rematch: Rematch accepts it.`);
      drawControls();
    }),
    // A rematch every racer accepted: on to the new race, on this connection.
    wire.on("matched", (m) => {
      knownRaces.set(m.race, m.info);
      go(`/play/${encodeURIComponent(m.race)}`);
    }),
    wire.on("race_finished", async (m) => {
      if (!ours(m)) return;
      state.finished = true;
      state.pending = null;
      const bot = bots.get(id);
      if (bot) {
        // The same practice again, one click away.
        state.again = { variant: state.info.variant, level: bot.level, speed: bot.speed };
        bot.stop();
        bots.delete(id);
      }
      state.info = { ...state.info, phase: "finished" };
      // A resignation or the clock ends a game without a move: the standings say how.
      const mine = m.standings.find((s) => s.player === me);
      if (mine && state.view)
        state.view = {
          ...state.view,
          resigned: mine.status === "resigned",
          timeout: mine.status === "timeout",
        };
      for (const s of m.standings)
        if (state.others[s.player])
          state.others[s.player] = { ...state.others[s.player], resigned: s.status === "resigned" };
      say("The race is over: the results are below.");
      drawAll();
      tick();
      // The solver's analysis may come with the results or after them (race_analysis).
      state.results = { ...m, analysis: m.analysis ?? state.results?.analysis };
      fill(results, await resultsBlock(state.info, state.results));
    }),
    wire.on("race_analysis", async (m) => {
      if (!ours(m)) return;
      state.results = { ...state.results, analysis: m.analysis };
      if (state.results.standings) fill(results, await resultsBlock(state.info, state.results));
    }),
  );

  // A tournament's next stage seats this entrant elsewhere: on to that table.
  stop.push(followTables(wire, me, id, (race) => go(`/play/${encodeURIComponent(race)}`)));

  // -- pointer and keys --------------------------------------------------------
  board.addEventListener("click", (event) => {
    const pile = event.target.closest(".pile");
    if (!pile) return;
    const card = event.target.closest(".card[data-index]");
    choose(pile.dataset.pile, card ? Number(card.dataset.index) : null);
  });
  // Drag and drop: picking up a card picks it, dropping it on a pile drops it there.
  board.addEventListener("dragstart", (event) => {
    const pile = event.target.closest?.(".pile");
    if (!pile || state.pending || state.seatLost) return event.preventDefault();
    const card = event.target.closest(".card[data-index]");
    state.picked = null;
    // Drawn a moment later: redrawing now would take the dragged card away.
    choose(pile.dataset.pile, card ? Number(card.dataset.index) : null, () =>
      setTimeout(drawAll, 0),
    );
    if (!state.picked) return event.preventDefault(); // the stock deals instead
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", pile.dataset.pile);
  });
  board.addEventListener("dragover", (event) => {
    if (state.picked && event.target.closest?.(".pile")) event.preventDefault();
  });
  board.addEventListener("drop", (event) => {
    const pile = event.target.closest?.(".pile");
    if (!pile || !state.picked) return;
    event.preventDefault();
    choose(pile.dataset.pile, null);
  });
  board.addEventListener("dragend", () => {
    if (state.picked && !state.pending) {
      state.picked = null;
      drawAll();
    }
  });
  const keys = (event) => {
    if (event.target.closest?.("input, select, textarea") || event.ctrlKey || event.metaKey) return;
    // Before the start, after the end, or with the seat elsewhere, no key moves.
    if (!state.view || !state.picker || state.finished || state.seatLost) return;
    const onPile = event.target.closest?.(".pile");
    if ((event.key === "Enter" || event.key === " ") && state.highlight) {
      send(state.highlight);
    } else if ((event.key === "Enter" || event.key === " ") && onPile) {
      choose(onPile.dataset.pile, null);
    } else if (event.key === "d") deal();
    else if (event.key === "D") send(state.picker?.action("deal-reversed") ?? "deal-reversed");
    else if (event.key === "f") finish();
    else if (event.key === "n") cycle();
    else if (event.key === "h" && state.info?.practice) hint();
    else if (event.key === "x") resign();
    else if (event.key === "Escape") {
      state.picked = null;
      state.highlight = null;
      say("");
      drawAll();
    } else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", keys);
  stop.push(() => document.removeEventListener("keydown", keys));
  const timer = setInterval(tick, 1000);
  stop.push(() => clearInterval(timer));

  // -- in: this connection takes the seat (a second tab's takes it from the first)
  state.info = await infoOf(wire, id);
  let reply;
  try {
    const asked = wire.request({ t: "resume", race: id, since: 0 });
    // The reply comes before the events it repeats: listen from the reply on.
    reply = await asked.then((said) => {
      resumed = true;
      return said;
    });
  } catch (error) {
    fill(
      main,
      h("h1", {}, "Cannot race here"),
      h("p", { class: "error" }, String(error.message)),
      h("p", {}, h("a", { href: `/race/${encodeURIComponent(id)}` }, "Watch this race")),
      h("p", {}, h("a", { href: "/play" }, "Back")),
    );
    return;
  }
  if (reply.t === "spectating") {
    go(`/race/${encodeURIComponent(id)}`); // not one of its racers: watch it instead
    return;
  }
  takeReply(reply);
  tick();
}
