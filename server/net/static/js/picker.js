// What a pointer or a key may point at, read from the server's legal move
// texts alone (docs/protocol.md, `move`): `src>dst`, `src:i>dst`,
// `swap a b [c]`, `deal`, `deal-reversed`, `redeal`. The page knows no rules:
// it only tells which piles a legal move starts from, where a picked card may
// go, and which move a pair of piles means. An attempt no legal move matches
// is still spelled out and sent, so that the server says why it is refused.

const PILE = "[a-z]+[0-9]*";
const CARD_MOVE = new RegExp(`^(${PILE})(?::([0-9]{1,3}))?>(${PILE})$`);
const SWAP = new RegExp(`^swap (${PILE}) (${PILE})(?: (${PILE}))?$`);
const ACTIONS = ["deal", "deal-reversed", "redeal"];

/** The parts of one move text, or null for a kind this page does not know. */
export function parseMove(text) {
  const body = String(text).trim().toLowerCase().split(/\s+/).join(" ");
  if (ACTIONS.includes(body)) return { kind: body };
  let match = CARD_MOVE.exec(body);
  if (match)
    return {
      kind: "move",
      src: match[1],
      index: match[2] === undefined ? null : Number(match[2]),
      dst: match[3],
    };
  match = SWAP.exec(body);
  if (match) return { kind: "swap", piles: match.slice(1).filter(Boolean) };
  return null;
}

/** Piles where a card is home for good (a move there counts for the race). */
const HOME_ROLES = new Set(["foundation", "parade"]);

export class MovePicker {
  constructor(layout, legal) {
    this.roles = new Map(layout.piles.map((p) => [p.id, p.role]));
    this.stock = layout.piles.find((p) => p.role === "stock")?.id ?? null;
    this.moves = [];
    for (const text of legal ?? []) {
      const move = parseMove(text);
      if (move) this.moves.push({ text, ...move });
    }
  }

  get texts() {
    return this.moves.map((m) => m.text);
  }

  startsAt(move, pile, index) {
    if (move.kind === "swap") return move.piles.includes(pile);
    if (move.kind !== "move") return pile === this.stock;
    return move.src === pile && (index === null || move.index === null || move.index === index);
  }

  /** The legal moves starting at `pile` (card `index`, or any: null), in the server's order. */
  fromPile(pile, index = null) {
    return this.moves.filter((m) => this.startsAt(m, pile, index));
  }

  /** Whether moves name single cards of `pile` (a spread pile, every card free). */
  indexed(pile) {
    return this.fromPile(pile).some((m) => m.kind === "move" && m.index !== null);
  }

  /** Every pile with a legal move starting there. */
  sources() {
    const found = new Set();
    for (const m of this.moves) {
      if (m.kind === "move") found.add(m.src);
      else if (m.kind === "swap") m.piles.forEach((p) => found.add(p));
      else if (this.stock) found.add(this.stock);
    }
    return found;
  }

  /** Every pile a card picked from `pile` may legally go to. */
  targets(pile, index = null) {
    const found = new Set();
    for (const m of this.fromPile(pile, index)) {
      if (m.kind === "swap") m.piles.filter((p) => p !== pile).forEach((p) => found.add(p));
      else if (m.kind === "move") found.add(m.dst);
    }
    return found;
  }

  /** The move text for taking `source` (card `index`) to `target`: the legal one, or as typed. */
  attempt(source, index, target) {
    for (const m of this.fromPile(source, index)) {
      if (m.kind === "swap" && m.piles.includes(target) && target !== source) return m.text;
      if (m.kind === "move" && m.dst === target) return m.text;
    }
    return index === null ? `${source}>${target}` : `${source}:${index}>${target}`;
  }

  /** The legal moves that put a card home, in the server's order (what "finish" plays). */
  homeward() {
    return this.moves.filter((m) => m.kind === "move" && HOME_ROLES.has(this.roles.get(m.dst)));
  }

  /** The first legal action among `kinds` ("deal", "redeal", "deal-reversed"). */
  action(...kinds) {
    for (const kind of kinds) {
      const found = this.moves.find((m) => m.kind === kind);
      if (found) return found.text;
    }
    return null;
  }
}
