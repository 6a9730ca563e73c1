// /tv: the race the server features (`featured_race`), watched exactly as any
// spectator watches it (race.js, under the race's own policy and delay), then
// the next featured race when it ends, without reloading. With no race under
// way it says so and asks again every few seconds. Each race is watched on a
// connection of its own, closed when the page moves on: the protocol has no
// "stop watching", and a page left on for hours would otherwise have the
// node keep a watch for every race it ever showed.

import { fill, h } from "/assets/js/dom.js";
import { showRace } from "/assets/js/race.js";
import { Wire, nodeUrl } from "/assets/js/wire.js";

/** How long the results stay on screen before the next race: 6 s, or `/tv?hold=S` (1..60). */
const HOLD = Number(new URLSearchParams(location.search).get("hold"));
const RESULTS_MS = 1000 * (HOLD >= 1 && HOLD <= 60 ? HOLD : 6);
/** How often to ask again while no race is under way (or the race shown has gone). */
const POLL_MS = 3000;

/**
 * The race shown ended without results reaching this page (a tournament table
 * keeps its results until its stage ends): once it has left the list of races
 * under way, wait out its spectating delay and the results' time, then move on.
 */
async function listedRace(wire, race) {
  const listed = await wire.request({ t: "list_races" });
  return listed.races.find((r) => r.id === race) ?? null;
}

export async function showTv(wire, main, stop) {
  document.title = "TV · Ballroom";
  const bar = h("p", { class: "status tv-status", "aria-live": "polite" });
  const stage = h("div", { class: "tv-stage" });
  fill(
    main,
    h("h1", {}, "Ballroom TV"),
    h("p", { class: "quiet" }, "The most interesting race under way, then the next one."),
    bar,
    stage,
  );
  let stopped = false;
  let raceStops = [];
  let raceWire = null;
  let timer = null;
  let check = null;
  const later = (action, ms) => {
    clearTimeout(timer);
    timer = setTimeout(action, ms);
  };
  const leaveRace = () => {
    clearInterval(check);
    for (const undo of raceStops) undo();
    raceStops = [];
    if (raceWire) {
      raceWire.onstate = () => {};
      raceWire.close();
      raceWire = null;
    }
  };
  stop.push(() => {
    stopped = true;
    clearTimeout(timer);
    leaveRace();
  });

  const waiting = () => {
    leaveRace();
    fill(bar, "");
    fill(stage, h("p", { class: "waiting tv-idle" }, "No race under way — waiting"));
  };

  // `after`: the race just shown, which the server may still name for a moment.
  const next = async (after) => {
    if (stopped) return;
    let race = null;
    try {
      race = (await wire.request({ t: "featured_race" })).race ?? null;
    } catch (error) {
      if (error.code === "closed") return; // main.js reconnects and starts /tv again
    }
    if (stopped) return;
    if (!race || race === after) {
      if (!stage.querySelector(".tv-idle")) waiting();
      later(() => next(after), POLL_MS);
      return;
    }
    await watch(race);
  };

  const ended = (race, ms) => {
    clearInterval(check);
    fill(bar, "Race over: the next race follows in a few seconds.");
    later(() => next(race), ms);
  };

  const watch = async (race) => {
    leaveRace();
    const view = h("div", { class: "tv-race", "data-race": race });
    fill(stage, view);
    fill(bar, "Now showing the featured race.");
    const mine = new Wire(nodeUrl(location));
    raceWire = mine;
    let finished = false;
    // Lost on its own (the page's own connection is still there): find a race again.
    mine.onstate = () => raceWire === mine && later(() => next(null), POLL_MS);
    raceStops.push(
      mine.on("race_finished", (m) => {
        if (m.race !== race) return;
        finished = true;
        ended(race, RESULTS_MS);
      }),
    );
    try {
      await mine.open();
      await showRace(mine, view, raceStops, race);
    } catch (error) {
      if (error.code === "closed" || raceWire !== mine) return;
      later(() => next(race), POLL_MS); // gone between the answer and the look
      return;
    }
    let delay = 0;
    let goneAt = null;
    check = setInterval(async () => {
      if (finished || raceWire !== mine) return;
      try {
        const listed = await listedRace(wire, race);
        if (listed) delay = Number(listed.delay) || 0;
        else goneAt ??= Date.now();
      } catch {
        return;
      }
      if (goneAt !== null && Date.now() - goneAt > delay * 1000 + 2 * RESULTS_MS) ended(race, 0);
    }, POLL_MS);
  };

  await next(null);
}
