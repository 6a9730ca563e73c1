// A watched race at a glance: who leads and by how much ("Ann leads by 3
// cards"), and a line per racer with their rating, clock and cards home.
// Drawn only from what the page was sent: the boards the race's spectating
// policy let through (a delayed race's are `delay` seconds old, so its
// headline is too), the results, and each account's public profile.

import { clock, h, nameOf } from "/assets/js/dom.js";

/** How an account's player id starts; any other id is a guest's (protocol/accounts.py). */
const ACCOUNT_PREFIX = "u";

/** Whether `player` is an account's id (a guest has no profile and no rating). */
export function isAccount(player) {
  return String(player).startsWith(ACCOUNT_PREFIX);
}

function cards(n) {
  return n === 1 ? "1 card" : `${n} cards`;
}

/** Whether a racer's game is over on this board (won, stuck, resigned, out of time). */
export function ended(view) {
  return Boolean(view && (view.won || view.over || view.resigned || view.timeout));
}

/**
 * Who leads, in words, from the boards shown (player → view) or, once the
 * race is over, its standings; null while there is nothing to compare.
 */
export function leadText(info, boards, standings = null) {
  if (standings?.length) {
    const [first, second] = [...standings].sort((a, b) => a.place - b.place);
    const name = nameOf(info, first.player);
    if (!second) return `${name}: ${Number(first.home)} cards home`;
    const gap = Number(first.home) - Number(second.home);
    return gap > 0 ? `${name} wins by ${cards(gap)}` : `${name} wins`;
  }
  const racers = info.players.filter((p) => boards[p]);
  if (!racers.length) return null;
  const home = (p) => Number(boards[p].home);
  racers.sort((a, b) => home(b) - home(a));
  const [leader, next] = racers;
  const name = nameOf(info, leader);
  if (!next) return `${name}: ${home(leader)} of ${Number(boards[leader].target)} cards home`;
  const gap = home(leader) - home(next);
  if (gap > 0) return `${name} leads by ${cards(gap)}`;
  const level = racers.filter((p) => home(p) === home(leader));
  const who =
    level.length === 2 ? `${name} and ${nameOf(info, level[1])} are` : `${level.length} racers are`;
  return `${who} level on ${cards(home(leader))}`;
}

/** A profile's rating for this race's variant (else overall), as shown: "1512", "1500?". */
export function ratingOf(profile, variant) {
  const rating = profile?.ratings?.[variant] ?? profile?.ratings?.overall;
  if (!rating) return null;
  return `${Number(rating.rating)}${rating.provisional ? "?" : ""}`;
}

/**
 * A racer's clock: their finishing time once known (the results', or when
 * their last board showed the game over), else the time since the start as
 * of the boards shown (`now` less the race's delay), at most the time limit.
 */
export function racerClock(info, view, finishedAt, standing, now) {
  if (standing) return clock(Number(standing.time));
  const start = Number(info.started_at);
  if (!view || !(start > 0)) return "–";
  if (ended(view)) return finishedAt ? clock(finishedAt - start) : "done";
  const shownAt = now - (info.spectate === "delayed" ? Number(info.delay) : 0);
  return clock(Math.min(Number(info.time_limit), Math.max(0, shownAt - start)));
}

/**
 * One line per racer: name, rating (or guest), clock, cards home. `state`
 * holds what the page knows: info, boards, finishedAt, ratings, standings.
 */
export function racerLines(state, now) {
  const { info } = state;
  const standings = new Map((state.standings ?? []).map((s) => [s.player, s]));
  return h(
    "ul",
    { class: "racer-lines" },
    info.players.map((p) => {
      const view = state.boards[p];
      const standing = standings.get(p);
      const home = standing ? standing.home : view?.home;
      const rating = state.ratings[p];
      return h(
        "li",
        { class: "racer-line", "data-player": p },
        h("span", { class: "name" }, nameOf(info, p)),
        h(
          "span",
          { class: "rating", title: "rating" },
          rating ?? (isAccount(p) ? "unrated" : "guest"),
        ),
        h(
          "span",
          { class: "racer-clock", title: "time" },
          racerClock(info, view, state.finishedAt[p], standing, now),
        ),
        h(
          "span",
          { class: "home" },
          home === undefined ? "" : `${Number(home)}${view ? `/${Number(view.target)}` : ""} home`,
        ),
      );
    }),
  );
}
