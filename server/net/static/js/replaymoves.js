// A replay's move list: the racer's moves in engine notation and in words,
// each a button that shows the position just after it, the shown one
// marked and kept in view, and the post-race analysis's marks beside the
// moves they concern (docs/protocol.md, `race_analysis`):
//   ?  the move after which the deal was no longer winnable (verdict "lost");
//   !  the last move of a game won within the solver's par; ✓ one won above it;
//   ✗  on the deal, when the deal was not winnable at all;
// and a "par" line after the par-th move, the length of the solver's line.

import { h } from "/assets/js/dom.js";
import { moveWords } from "/assets/js/movewords.js";

/** The analysis's marks for one racer's game of `last` moves: step → {sign, title}. */
function marksOf(racer, last) {
  const marks = new Map();
  if (!racer) return marks;
  const par = racer.par ?? null;
  if (racer.verdict === "lost" && racer.move) {
    marks.set(Number(racer.move), {
      sign: "?",
      title: "after this move the deal was no longer winnable",
    });
  } else if (racer.verdict === "won" && last > 0) {
    const within = par !== null && last <= par;
    marks.set(last, {
      sign: within ? "!" : "✓",
      title: par === null ? "won" : `won in ${last} moves (par ${par})`,
    });
  } else if (racer.verdict === "unwinnable") {
    marks.set(0, { sign: "✗", title: "the deal was not winnable" });
  }
  return marks;
}

export class MoveList {
  /**
   * The list of `replay`'s moves (`moves[n − 1]` leads to `views[n]`) read
   * against `layout`; `pick(n)` is called with the step a click chose.
   */
  constructor(layout, replay, pick) {
    this.last = replay.moves.length;
    this.items = [];
    this.current = -1;
    const entry = (step, notation, words) => {
      const button = h(
        "button",
        // One stop for Tab (the shown move's); ← and → step from there.
        {
          type: "button",
          class: "move",
          "data-step": step,
          tabindex: -1,
          onclick: () => pick(step),
        },
        h("span", { class: "n" }, step ? `${step}.` : ""),
        h("span", { class: "notation" }, notation),
        words && words !== notation ? h("span", { class: "words" }, words) : null,
        h("span", { class: "mark" }),
      );
      const item = h("li", { "data-step": step }, button);
      this.items.push(item);
      return item;
    };
    const rows = [entry(0, "the deal", null)];
    replay.moves.forEach((move, i) => {
      rows.push(entry(i + 1, move, moveWords(layout, replay.views[i], move)));
    });
    this.list = h("ol", { class: "move-list", "aria-label": "moves" }, rows);
    this.element = h("nav", { class: "moves", "aria-label": "moves of this racer" }, this.list);
  }

  /** Puts the analysis's marks on the moves (`racer`: its entry, with `par`; null: none yet). */
  mark(racer) {
    const key = racer ? `${racer.verdict}:${racer.move}:${racer.par}` : "";
    if (key === this.marked) return;
    this.marked = key;
    const marks = marksOf(racer, this.last);
    const lostAfter = racer?.verdict === "lost" ? Number(racer.move) : null;
    for (const item of this.items) {
      const step = Number(item.dataset.step);
      const sign = item.querySelector(".mark");
      const mark = marks.get(step);
      sign.textContent = mark ? mark.sign : "";
      if (mark) sign.setAttribute("title", mark.title);
      else sign.removeAttribute("title");
      item.classList.toggle("marked", Boolean(mark));
      item.classList.toggle("lost", lostAfter !== null && step > lostAfter);
    }
    this.list.querySelector(".par-line")?.remove();
    const par = racer?.par;
    if (par !== null && par !== undefined && par > 0 && par < this.last) {
      this.items[par].after(
        h("li", { class: "par-line", "aria-hidden": "true" }, `par ${Number(par)}`),
      );
    }
  }

  /** Marks step `n` as the one shown and scrolls the list (only the list) to it. */
  select(n) {
    if (n === this.current) return;
    const old = this.items[this.current]?.querySelector("button");
    old?.removeAttribute("aria-current");
    old?.setAttribute("tabindex", "-1");
    this.items[this.current]?.classList.remove("current");
    this.current = n;
    const item = this.items[n];
    if (!item) return;
    item.classList.add("current");
    const button = item.querySelector("button");
    button.setAttribute("aria-current", "step");
    button.setAttribute("tabindex", "0");
    // Focus follows the shown move when it was on the list, so Tab leaves from there.
    if (old && document.activeElement === old) button.focus({ preventScroll: true });
    const list = this.element;
    const top = item.offsetTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + item.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}
