"""Layout as data: where each pile of a variant sits and how it is drawn.

The server sends a variant's layout once; a client that knows no rules can
then draw any variant from the layout plus the views that follow.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from protocol.validation import Shape

__all__ = ["Fan", "Layout", "PileSpec", "Role"]


class Role(enum.Enum):
    """What a pile is for, in the games' own words."""

    STOCK = "stock"
    WASTE = "waste"
    FOUNDATION = "foundation"
    RESERVE = "reserve"
    TABLEAU = "tableau"
    PARADE = "parade"
    DEPOT = "depot"
    DISCARD = "discard"


class Fan(enum.Enum):
    """How a pile's cards are spread when drawn."""

    NONE = "none"  # squared: only the top card shows
    DOWN = "down"  # overlapping column, top card lowest
    RIGHT = "right"  # overlapping row, top card rightmost


@dataclass(frozen=True, slots=True)
class PileSpec:
    """One pile: id (as used in move text), role, grid cell, fan and label."""

    id: str
    role: Role
    row: int
    col: int
    fan: Fan = Fan.NONE
    label: str = ""

    def to_data(self) -> dict[str, object]:
        return {
            "id": self.id,
            "role": self.role.value,
            "row": self.row,
            "col": self.col,
            "fan": self.fan.value,
            "label": self.label,
        }

    @classmethod
    def from_data(cls, data: object) -> PileSpec:
        shape = Shape(data, "pile")
        return cls(
            id=shape.text("id"),
            role=shape.choice("role", Role),
            row=shape.integer("row"),
            col=shape.integer("col"),
            fan=shape.choice("fan", Fan),
            label=shape.text("label"),
        )


@dataclass(frozen=True, slots=True)
class Layout:
    """Every pile of a variant, in the order views list them."""

    variant: str
    title: str
    piles: tuple[PileSpec, ...]

    def pile(self, pile_id: str) -> PileSpec:
        for spec in self.piles:
            if spec.id == pile_id:
                return spec
        raise KeyError(pile_id)

    def to_data(self) -> dict[str, object]:
        return {
            "variant": self.variant,
            "title": self.title,
            "piles": [spec.to_data() for spec in self.piles],
        }

    @classmethod
    def from_data(cls, data: object) -> Layout:
        shape = Shape(data, "layout")
        piles = shape.value("piles")
        if not isinstance(piles, list | tuple):
            raise shape.invalid("piles", "must be an array")
        return cls(
            variant=shape.text("variant"),
            title=shape.text("title"),
            piles=tuple(PileSpec.from_data(p) for p in piles),
        )
