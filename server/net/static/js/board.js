// One racer's board, drawn from the layout data and a view (docs/protocol.md,
// "The maps inside messages"): the page knows no variant's rules, only piles
// on a grid, how each is spread, and card ids.

import { h } from "/assets/js/dom.js";

const SUITS = ["♣", "♦", "♥", "♠"];
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
const RANK_NAMES = ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"];

/** A card id (deck × 52 + suit × 13 + rank − 1) as what is printed on it. */
export function cardFace(id) {
  const n = Number(id) % 52;
  const suit = Math.floor(n / 13);
  const rank = n % 13;
  return {
    text: RANKS[rank] + SUITS[suit],
    words: `${RANK_NAMES[rank]} of ${SUIT_NAMES[suit]}`,
    red: suit === 1 || suit === 2,
  };
}

function card(id, index) {
  const face = cardFace(id);
  return h(
    "span",
    { class: face.red ? "card red" : "card black", title: face.words, "data-index": index },
    face.text,
  );
}

function back(count) {
  return h(
    "span",
    { class: "card back", title: `${count} face down`, "aria-label": `${count} face down` },
    h("span", { class: "count" }, String(count)),
  );
}

/** The classes a racer's own board adds to a pile: where moves start, where the picked card may go. */
function markClasses(marks, id) {
  if (!marks) return "";
  const classes = [];
  if (marks.sources?.has(id)) classes.push("source");
  if (marks.targets?.has(id)) classes.push("target");
  if (marks.picked?.pile === id) classes.push("picked");
  if (marks.pending?.includes(id)) classes.push("pending");
  return classes.length ? ` ${classes.join(" ")}` : "";
}

function pile(spec, cards, hidden, marks) {
  const shown = spec.fan === "none" ? cards.slice(-1) : cards;
  const parts = [];
  if (hidden > 0) parts.push(back(hidden));
  const first = cards.length - shown.length;
  shown.forEach((id, i) => {
    const drawn = card(id, first + i);
    if (marks) drawn.setAttribute("draggable", "true");
    const index = marks?.picked?.pile === spec.id ? marks.picked.index : null;
    if (index === first + i) drawn.classList.add("chosen");
    parts.push(drawn);
  });
  if (!parts.length) parts.push(h("span", { class: "card empty" }));
  if (spec.fan === "none" && cards.length > 1) {
    parts.push(h("span", { class: "badge", title: `${cards.length} cards` }, `×${cards.length}`));
  }
  const labelled = spec.role === "foundation" || spec.role === "stock" || spec.role === "waste";
  const top = cards.length ? cardFace(cards[cards.length - 1]).words : "empty";
  return h(
    "div",
    {
      class: `pile fan-${spec.fan} role-${spec.role}${markClasses(marks, spec.id)}`,
      style: { "grid-row": spec.row + 1, "grid-column": spec.col + 1 },
      title: `${spec.label} (${spec.id})`,
      "data-pile": spec.id,
      // A racer's own piles are buttons: Tab reaches them, Enter or Space picks and drops.
      tabindex: marks ? 0 : null,
      role: marks ? "button" : null,
      "aria-label": marks ? `${spec.label} ${spec.id}: ${top}` : null,
    },
    h("div", { class: "cards" }, parts),
    labelled ? h("div", { class: "label" }, spec.label) : null,
  );
}

/** The progress numbers of a view as a line of text. */
export function progressText(view) {
  if (!view) return "";
  const status = view.won
    ? "won"
    : view.resigned
      ? "resigned"
      : view.over
        ? "stuck"
        : view.timeout
          ? "out of time"
          : "racing";
  return `${view.home}/${view.target} home · ${view.moves} moves · ${status}`;
}

/**
 * A board's last move: its notation, or (a move as moved.js describes it,
 * `{text, words}`) its words beside its notation.
 */
function lastMoveLine(lastMove) {
  if (!lastMove) return null;
  if (typeof lastMove !== "object")
    return h("span", { class: "last-move" }, `last move ${lastMove}`);
  return h(
    "span",
    { class: "last-move" },
    h("span", { class: "move-words" }, lastMove.words),
    // An action's words are its notation ("deal"): said once.
    lastMove.words === lastMove.text
      ? null
      : [" ", h("code", { class: "notation" }, lastMove.text)],
  );
}

/**
 * The whole board of one racer: a grid of piles, with its name and progress
 * above; `lastMove` is a move text or a described move. `marks` (a racer's
 * own board only) says which piles moves start from (`sources`), where the
 * picked card may go (`targets`), the `picked` {pile, index} and the piles of
 * a move sent and not yet answered (`pending`).
 */
export function drawBoard(layout, view, title, lastMove, marks = null) {
  const columns = Math.max(...layout.piles.map((p) => p.col)) + 1;
  const piles = layout.piles.map((spec) =>
    pile(spec, view.piles[spec.id] ?? [], Number(view.hidden?.[spec.id] ?? 0), marks),
  );
  const share = view.target ? Math.round((100 * view.home) / view.target) : 0;
  return h(
    "section",
    { class: marks ? "board mine" : "board", "aria-label": `${title}'s board` },
    h(
      "header",
      {},
      h("h3", {}, title),
      h("span", { class: "progress-text" }, progressText(view)),
      lastMoveLine(lastMove),
      h(
        "div",
        {
          class: "bar",
          role: "progressbar",
          "aria-valuemin": 0,
          "aria-valuemax": view.target,
          "aria-valuenow": view.home,
        },
        h("span", { style: { width: `${share}%` } }),
      ),
    ),
    h("div", { class: "grid", style: { "--cols": columns } }, piles),
  );
}
