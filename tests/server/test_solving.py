"""The solver's service pieces that need no server: the worker functions and the line cache."""

from __future__ import annotations

from server.engine import find_variant
from server.engine.solver import Outcome, solve_deal
from server.services.solving import LineCache, solve_position

GAME = find_variant("quadrille")


def test_solve_position_answers_in_plain_values() -> None:
    """What crosses the process boundary: the outcome's value and the line as strings."""
    state = GAME.deal(0)
    outcome, line, suggestion = solve_position(GAME.id, state.to_data(), 10.0)
    expected = solve_deal(GAME, 0, nodes=100_000)
    assert Outcome(outcome) is expected.outcome and line == expected.line
    assert suggestion is None  # decided: no guess needed


def test_solve_position_out_of_time_suggests_a_legal_move() -> None:
    """A search cut short answers unknown with the most promising move, a legal one."""
    game = find_variant("royal-parade")
    state = game.deal(0)
    outcome, line, suggestion = solve_position(game.id, state.to_data(), 0.0001)
    assert Outcome(outcome) is Outcome.UNKNOWN and line == ()
    assert suggestion in game.legal_moves(state).texts()


def test_the_line_cache_follows_the_racer_and_forgets_a_detour() -> None:
    """While the racer plays the line, each next move comes from it; a detour drops it."""
    seed = next(s for s in range(50) if solve_deal(GAME, s, nodes=100_000).won)
    line = solve_deal(GAME, seed, nodes=100_000).line
    cache = LineCache()
    start = GAME.deal(seed)
    cache.remember("r1", "p1", 0, start, line)
    assert cache.next_move(GAME, "r1", "p1", 0, start) == line[0]
    after_one = GAME.replay(seed, list(line[:1]))
    after_two = GAME.replay(seed, list(line[:2]))
    assert cache.next_move(GAME, "r1", "p1", 2, after_two) == line[2]  # skipped a hint: fine
    assert cache.next_move(GAME, "r1", "p1", 1, after_one) is None  # earlier than remembered
    detour = [m for m in GAME.legal_moves(after_two).texts() if m != line[2]]
    if detour:
        off = GAME.replay(seed, [*line[:2], detour[0]])
        assert cache.next_move(GAME, "r1", "p1", 3, off) is None
        assert cache.next_move(GAME, "r1", "p1", 2, after_two) is None  # forgotten
    assert cache.next_move(GAME, "r1", "p2", 0, start) is None  # another racer's board
