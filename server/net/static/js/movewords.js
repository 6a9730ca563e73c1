// A move's engine notation (protocol/moves.py: "w>f3", "r:4>f2", "p5>x",
// "swap p3 p9", "deal") in words, for people: "7♦ to the foundation". The
// page knows no rules: it reads the moved card off the board before the
// move and the destination's role and label off the layout.

import { cardFace } from "/assets/js/board.js";
import { parseMove } from "/assets/js/picker.js";

const ACTIONS = {
  deal: "deal",
  "deal-reversed": "the last deal, right to left",
  redeal: "redeal",
};
const DISCARD_PILE = "x"; // protocol/moves.py: "p5>x" discards

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
  const parsed = parseMove(move);
  if (!parsed) return String(move);
  if (ACTIONS[parsed.kind]) return ACTIONS[parsed.kind];
  if (parsed.kind === "swap") {
    const cards = parsed.piles.map((id) => cardAt(before, id));
    return cards.length > 2 ? `rotate ${cards.join(", ")}` : `swap ${cards.join(" and ")}`;
  }
  const card = cardAt(before, parsed.src, parsed.index ?? undefined);
  if (parsed.dst === DISCARD_PILE) return `${card} discarded`;
  return `${card} to ${placeWords(layout, parsed.dst)}`;
}
