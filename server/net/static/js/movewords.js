// A move's engine notation (protocol/moves.py: "w>f3", "r:4>f2", "p5>x",
// "swap p3 p9", "deal") in words, for people: "7♦ to the foundation". The
// page knows no rules: it reads the moved card off the board before the
// move and the destination's role and label off the layout.

import { cardFace } from "/assets/js/board.js";

const ACTIONS = {
  deal: "deal",
  "deal-reversed": "the last deal, right to left",
  redeal: "redeal",
};
const CARD_MOVE = /^([a-z]+[0-9]*)(?::([0-9]{1,3}))?>([a-z]+[0-9]*)$/;
const DISCARD = /^discard ([a-z]+[0-9]*)(?::([0-9]{1,3}))?$/;
const SWAP = /^swap ([a-z]+[0-9]*) ([a-z]+[0-9]*)(?: ([a-z]+[0-9]*))?$/;

/** The card at `index` of pile `id` in `view` (its top card when no index), as printed. */
function cardAt(view, id, index) {
  const cards = view?.piles?.[id] ?? [];
  const card = index === undefined ? cards[cards.length - 1] : cards[Number(index)];
  return card === undefined ? "a card" : cardFace(card).text;
}

/** Where a card goes, in words: "the foundation", "Ladies p3". */
function placeWords(layout, id) {
  const spec = layout?.piles?.find((p) => p.id === id);
  if (!spec) return id;
  if (spec.role === "foundation") return "the foundation";
  return `${spec.label || spec.role} ${id}`;
}

/**
 * `move` in words, read against `before` (the racer's view before it) and
 * `layout`; the notation itself when it is none the page knows.
 */
export function moveWords(layout, before, move) {
  const text = String(move);
  if (ACTIONS[text]) return ACTIONS[text];
  let m = CARD_MOVE.exec(text);
  if (m && m[3] === "x") return `${cardAt(before, m[1], m[2])} discarded`;
  if (m) return `${cardAt(before, m[1], m[2])} to ${placeWords(layout, m[3])}`;
  m = DISCARD.exec(text);
  if (m) return `${cardAt(before, m[1], m[2])} discarded`;
  m = SWAP.exec(text);
  if (m) {
    const cards = [m[1], m[2], m[3]].filter(Boolean).map((id) => cardAt(before, id));
    return m[3] ? `rotate ${cards.join(", ")}` : `swap ${cards.join(" and ")}`;
  }
  return text;
}
