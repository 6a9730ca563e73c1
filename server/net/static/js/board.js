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

function card(id) {
  const face = cardFace(id);
  return h("span", { class: face.red ? "card red" : "card black", title: face.words }, face.text);
}

function back(count) {
  return h(
    "span",
    { class: "card back", title: `${count} face down`, "aria-label": `${count} face down` },
    h("span", { class: "count" }, String(count)),
  );
}

function pile(spec, cards, hidden) {
  const shown = spec.fan === "none" ? cards.slice(-1) : cards;
  const parts = [];
  if (hidden > 0) parts.push(back(hidden));
  for (const id of shown) parts.push(card(id));
  if (!parts.length) parts.push(h("span", { class: "card empty" }));
  if (spec.fan === "none" && cards.length > 1) {
    parts.push(h("span", { class: "badge", title: `${cards.length} cards` }, `×${cards.length}`));
  }
  const labelled = spec.role === "foundation" || spec.role === "stock" || spec.role === "waste";
  return h(
    "div",
    {
      class: `pile fan-${spec.fan} role-${spec.role}`,
      style: { "grid-row": spec.row + 1, "grid-column": spec.col + 1 },
      title: `${spec.label} (${spec.id})`,
      "data-pile": spec.id,
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

/** The whole board of one racer: a grid of piles, with its name and progress above. */
export function drawBoard(layout, view, title, lastMove) {
  const columns = Math.max(...layout.piles.map((p) => p.col)) + 1;
  const piles = layout.piles.map((spec) =>
    pile(spec, view.piles[spec.id] ?? [], Number(view.hidden?.[spec.id] ?? 0)),
  );
  const share = view.target ? Math.round((100 * view.home) / view.target) : 0;
  return h(
    "section",
    { class: "board", "aria-label": `${title}'s board` },
    h(
      "header",
      {},
      h("h3", {}, title),
      h("span", { class: "progress-text" }, progressText(view)),
      lastMove ? h("span", { class: "last-move" }, `last move ${lastMove}`) : null,
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
