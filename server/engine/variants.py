"""The registry of variants, by id."""

from __future__ import annotations

from server.engine.cotillion import Contradance, Gavotte, OddAndEven, RoyalCotillion
from server.engine.duchess import GrandDuchess, Parisienne
from server.engine.exceptions import UnknownVariantError
from server.engine.game import Game
from server.engine.parade import RoyalParade, RoyalParadeBergholt, VirginiaReel
from server.engine.quadrille import Quadrille
from server.engine.rendezvous import RoyalRendezvous, RoyalRendezvousSolSuite

__all__ = ["VARIANTS", "find_variant"]

VARIANTS: dict[str, Game] = {
    game.id: game
    for game in (
        RoyalCotillion(),
        Gavotte(),
        OddAndEven(),
        Contradance(),
        RoyalRendezvous(),
        RoyalRendezvousSolSuite(),
        Quadrille(),
        GrandDuchess(),
        Parisienne(),
        RoyalParade(),
        RoyalParadeBergholt(),
        VirginiaReel(),
    )
}


def find_variant(variant_id: str) -> Game:
    """The variant with this id; raises :class:`UnknownVariantError`."""
    try:
        return VARIANTS[variant_id]
    except (KeyError, TypeError):
        raise UnknownVariantError(f"no variant {variant_id!r}") from None
