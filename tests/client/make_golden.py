"""Write ``golden/*.txt``: how the terminal client draws each variant's table.

Run from the project root after a deliberate change to the board drawing
(never to make a failing test pass without looking at the difference)::

    python -m tests.client.make_golden

For every variant, the file holds the opening of deal :data:`SEED` and the
busiest position (the most cards in fanned piles; else the middle) of a game
the greedy bot policy plays from it, drawn by
:func:`client.widgets.board.draw_board` in the board area the game screen
gives it (:func:`client.screens.game.fit_table`) in each of
:data:`TERMINALS`: every variant must be playable at 80×24 (the racers
panel then folds into one line above the board where it does not fit).
The views come from the engine here, in the tests only: the client itself
never imports it. ``tournament-*.txt`` hold the tournament screen's status
lines, bracket and standings for the documents of
:mod:`tests.client.tournament_docs`, as its 40-column pane draws them.
"""

from __future__ import annotations

from pathlib import Path

from client.screens.game import fit_table
from client.widgets.board import draw_board
from protocol.layout import Fan
from protocol.policy import GreedyPolicy
from protocol.views import View, ViewMap
from server.engine import VARIANTS, Game

__all__ = ["GOLDEN_DIR", "MAX_MOVES", "SEED", "TERMINALS", "golden_text", "main", "positions"]

GOLDEN_DIR = Path(__file__).with_name("golden")
SEED = 1
MAX_MOVES = 400

#: The terminals every variant is drawn for: an ordinary one, and a roomy one.
TERMINALS = ((80, 24), (120, 40))


def positions(game: Game) -> list[tuple[str, View]]:
    """The opening, and the busiest view of a greedy game (most cards in fanned piles)."""
    fanned = [spec.id for spec in game.layout.piles if spec.fan is not Fan.NONE]
    state = game.deal(SEED)
    views = [game.view(state)]
    policy = GreedyPolicy(game.layout)
    while len(views) <= MAX_MOVES and (legal := list(game.legal_moves(state))):
        state = game.apply(state, policy.choose(views[-1], legal))
        views.append(game.view(state))
    busiest = max(views, key=lambda view: _spread(view, fanned))
    if busiest is views[0]:  # nothing fans out further: take the middle of the game
        busiest = views[len(views) // 2]
    opening = View.from_data(views[0])
    return [("opening", opening), (f"after {busiest['moves']} moves", View.from_data(busiest))]


def _spread(view: ViewMap, fanned: list[str]) -> int:
    return sum(len(view["piles"].get(pile, ())) for pile in fanned)


def golden_text(game: Game) -> str:
    parts = []
    for width, height in TERMINALS:
        for title, view in positions(game):
            fit = fit_table(game.layout, view, width, height)
            drawing = draw_board(game.layout, view, *fit.board)
            beside = "racers panel" if fit.sidebar else "summary line"
            parts.append(
                f"== {game.id}, deal {SEED}, {title}, {width}x{height}, {beside}\n{drawing.plain()}"
            )
    return "\n".join(parts)


def main() -> None:
    from tests.client.tournament_docs import golden_texts

    GOLDEN_DIR.mkdir(exist_ok=True)
    for game in VARIANTS.values():
        path = GOLDEN_DIR / f"{game.id}.txt"
        path.write_text(golden_text(game), encoding="utf-8")
        print(f"wrote {path}")
    for name, text in golden_texts().items():
        path = GOLDEN_DIR / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
