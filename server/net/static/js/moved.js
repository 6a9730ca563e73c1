// The move a spectator just saw, marked on the racer's board: its old place
// (`moved-from`), its new place (`moved-to`) and the card that arrived there,
// which slides in from where it was (a short CSS animation, none when the
// person asked for reduced motion). Read off the move's text and the two
// boards the server sent, before and after it: the page knows no rules.

import { moveWords } from "/assets/js/movewords.js";
import { parseMove } from "/assets/js/picker.js";

const REDUCED = "(prefers-reduced-motion: reduce)";

function sameCards(a, b) {
  return a.length === b.length && a.every((card, i) => card === b[i]);
}

/**
 * Which piles of `layout` a move emptied (`from`) and filled (`to`). A card
 * move names them; any other (a deal, a redeal, a swap) is read from what
 * changed between the boards `before` and `after`: a pile with fewer cards
 * gave, one with as many or more took. Without `before`, the text alone.
 */
export function movedPiles(layout, before, after, text) {
  const ids = new Set(layout.piles.map((p) => p.id));
  const parsed = text ? parseMove(text) : null;
  if (parsed?.kind === "move") {
    return {
      from: ids.has(parsed.src) ? [parsed.src] : [],
      to: ids.has(parsed.dst) ? [parsed.dst] : [],
    };
  }
  if (!before) {
    const named = parsed?.kind === "swap" ? parsed.piles.filter((id) => ids.has(id)) : [];
    return { from: [], to: named };
  }
  const from = [];
  const to = [];
  for (const { id } of layout.piles) {
    const was = before.piles?.[id] ?? [];
    const is = after.piles?.[id] ?? [];
    const wasHidden = Number(before.hidden?.[id] ?? 0);
    const isHidden = Number(after.hidden?.[id] ?? 0);
    if (wasHidden === isHidden && sameCards(was, is)) continue;
    (was.length + wasHidden > is.length + isHidden ? from : to).push(id);
  }
  return { from, to };
}

/**
 * A move as the page shows it: its text, its words ("7♦ to the foundation")
 * and the piles it emptied and filled; null for a change without a move.
 */
export function describeMove(layout, before, after, text) {
  if (!text) return null;
  return {
    text: String(text),
    words: moveWords(layout, before, text),
    ...movedPiles(layout, before, after, text),
  };
}

function pileOf(board, id) {
  return board.querySelector(`.pile[data-pile="${id}"]`);
}

/** The card on top of a drawn pile (its last face-up card), if it shows one. */
function topCard(pile) {
  const cards = pile?.querySelectorAll(".card:not(.empty):not(.back)") ?? [];
  return cards.length ? cards[cards.length - 1] : null;
}

/** Mark the move's old and new places, and the cards now there, on a drawn board. */
export function markMove(board, move) {
  if (!move) return;
  board.classList.add("has-move");
  for (const id of move.from) pileOf(board, id)?.classList.add("moved-from");
  for (const id of move.to) {
    const pile = pileOf(board, id);
    pile?.classList.add("moved-to");
    topCard(pile)?.classList.add("moved");
  }
}

/**
 * Slide the cards that arrived in from their old place, once the board is on
 * the page (its places are measured then); nothing when motion is unwelcome.
 */
export function animateMove(board, move) {
  if (!move || !move.to.length || window.matchMedia?.(REDUCED).matches) return;
  const origin = move.from.length ? pileOf(board, move.from[0]) : null;
  for (const id of move.to) {
    const card = topCard(pileOf(board, id));
    if (!card) continue;
    if (origin) {
      const start = (topCard(origin) ?? origin).getBoundingClientRect();
      const end = card.getBoundingClientRect();
      // Custom properties through the CSSOM: the page's policy refuses style attributes.
      card.style.setProperty("--from-x", `${Math.round(start.left - end.left)}px`);
      card.style.setProperty("--from-y", `${Math.round(start.top - end.top)}px`);
    }
    card.classList.add("arriving");
    card.addEventListener("animationend", () => card.classList.remove("arriving"), {
      once: true,
    });
  }
}
