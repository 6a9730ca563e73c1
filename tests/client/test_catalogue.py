"""The client's variant catalogue agrees with the engine (which the client never imports)."""

from __future__ import annotations

import pytest

from client.models.catalogue import VARIANTS, find
from client.models.rules import RULES
from client.screens.game import fit_table
from server.engine import VARIANTS as ENGINE
from tests.client.make_golden import positions
from tests.client.make_rules import engine_rules


def test_the_catalogue_lists_every_variant_with_its_title() -> None:
    """Same ids and titles as the engine's registry."""
    assert {v.id: v.title for v in VARIANTS} == {g.id: g.title for g in ENGINE.values()}


@pytest.mark.parametrize("variant", sorted(ENGINE))
def test_the_size_the_lobby_asks_for_shows_the_board(variant: str) -> None:
    """The terminal the lobby says a variant needs holds its board, opening and busiest."""
    game, entry = ENGINE[variant], find(variant)
    assert entry is not None
    needs = [fit_table(game.layout, view, 1, 1).need for _, view in positions(game)]
    assert entry.need == (max(w for w, _ in needs), max(h for _, h in needs))
    assert entry.need[0] <= 80 and entry.need[1] <= 24


def test_the_rules_copy_is_the_engines_current_words() -> None:
    """client/models/rules.py matches the engine's descriptions (make_rules rewrites it)."""
    assert {variant: engine_rules(game) for variant, game in ENGINE.items()} == RULES
