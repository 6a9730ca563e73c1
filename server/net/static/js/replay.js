// Replay of a finished race: every position of one racer's game (`replay`),
// drawn with the layout from the race's `spectating` snapshot, beside the
// racer's moves as a list to click (replaymoves.js), with the post-race
// analysis's marks. Keys: ← and → step, Home and End jump, Space plays or pauses.

import { drawBoard } from "/assets/js/board.js";
import { fill, h, nameOf } from "/assets/js/dom.js";
import { analysisText } from "/assets/js/race.js";
import { MoveList } from "/assets/js/replaymoves.js";

const SPEEDS = [0.5, 1, 2, 4, 8, 16]; // moves per second

export async function showReplay(wire, main, stop, raceId, player) {
  // The results follow the snapshot of a finished race: they say how a game
  // that ended without a move (resigned, out of time) ended.
  let final = null;
  let analysis = null; // the post-race analysis, once it came
  let redraw = () => {};
  stop.push(
    wire.on("race_finished", (m) => {
      const standing = m.race === raceId && m.standings.find((s) => s.player === player);
      if (!standing) return;
      final = { resigned: standing.status === "resigned", timeout: standing.status === "timeout" };
      analysis = m.analysis ?? analysis;
      redraw();
    }),
    wire.on("race_analysis", (m) => {
      if (m.race !== raceId) return;
      analysis = m.analysis;
      redraw();
    }),
  );
  const snapshot = await wire.request({ t: "spectate", race: raceId });
  const info = snapshot.race;
  const replay = await wire.request({ t: "replay", race: raceId, player });
  const last = replay.views.length - 1;
  let at = 0;
  let speed = 2;
  let timer = null;

  const boardSlot = h("div", { class: "boards single" });
  const where = h("p", { class: "where", "aria-live": "polite" });
  const verdict = h("p", { class: "analysis" });
  const slider = h("input", {
    type: "range",
    min: 0,
    max: last,
    value: 0,
    "aria-label": "position",
  });
  const playButton = h("button", { type: "button", class: "play" }, "Play");
  const moveList = new MoveList(snapshot.layout, replay, (n) => show(n));

  const show = (n) => {
    at = Math.max(0, Math.min(last, n));
    slider.value = String(at);
    const move = at ? replay.moves[at - 1] : "the deal";
    fill(where, `Move ${at} of ${last}: ${move}`);
    const mine = analysis?.racers.find((r) => r.player === player);
    const lost = mine?.verdict === "lost" && at >= mine.move ? "   (this position is lost)" : "";
    fill(verdict, mine ? `Analysis: ${analysisText(mine, analysis.par)}${lost}` : "");
    const view = at === last && final ? { ...replay.views[at], ...final } : replay.views[at];
    fill(boardSlot, drawBoard(snapshot.layout, view, nameOf(info, player)));
    moveList.mark(mine ? { ...mine, par: analysis.par } : null);
    moveList.select(at);
    if (at === last) pause();
  };
  const pause = () => {
    clearInterval(timer);
    timer = null;
    fill(playButton, "Play");
  };
  const play = () => {
    if (at === last) show(0);
    clearInterval(timer);
    timer = setInterval(() => show(at + 1), 1000 / speed);
    fill(playButton, "Pause");
  };
  const toggle = () => (timer ? pause() : play());
  const button = (label, action, hint) =>
    h("button", { type: "button", onclick: action, title: hint, "aria-label": hint }, label);

  slider.addEventListener("input", () => show(Number(slider.value)));
  playButton.addEventListener("click", toggle);
  const speedPicker = h(
    "select",
    {
      "aria-label": "speed",
      onchange: (event) => {
        speed = Number(event.target.value);
        if (timer) play();
      },
    },
    SPEEDS.map((s) => h("option", { value: s, selected: s === speed }, `${s} moves/s`)),
  );
  const racerPicker = h(
    "nav",
    { class: "racers", "aria-label": "racer" },
    info.players.map((p) =>
      h(
        "a",
        { href: `/replay/${raceId}/${p}`, "aria-current": p === player ? "page" : null },
        nameOf(info, p),
      ),
    ),
  );
  const onKey = (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement)
      return;
    const keys = {
      ArrowLeft: () => show(at - 1),
      ArrowRight: () => show(at + 1),
      Home: () => show(0),
      End: () => show(last),
      " ": toggle,
    };
    if (keys[event.key] && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      keys[event.key]();
    }
  };
  document.addEventListener("keydown", onKey);
  stop.push(pause, () => document.removeEventListener("keydown", onKey));

  document.title = `Replay · ${nameOf(info, player)} · ${info.code} · Ballroom`;
  fill(
    main,
    h("h1", {}, `Replay: ${snapshot.layout.title} `, h("span", { class: "code" }, info.code)),
    h("p", {}, h("a", { href: `/race/${raceId}` }, "the race and its results")),
    racerPicker,
    h(
      "div",
      { class: "controls" },
      button("First", () => show(0), "first (Home)"),
      button("◀", () => show(at - 1), "back (←)"),
      playButton,
      button("▶", () => show(at + 1), "forward (→)"),
      button("Last", () => show(last), "last (End)"),
      speedPicker,
      slider,
    ),
    where,
    verdict,
    h("div", { class: "replay-body" }, boardSlot, moveList.element),
  );
  show(0);
  redraw = () => show(at);
}
