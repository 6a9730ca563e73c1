"""Write ``client/models/rules.py``: each variant's rules, in the engine's own words.

The client never imports the engine, and the server sends no rules text
(only layouts), so the rules screen reads a copy. The copy is made here from
the engine's descriptions (each variant's ``summary`` and docstring, then its
family module's docstring) and ``tests/client/test_catalogue.py`` fails when
the engine's words change and the copy does not. Run from the project root::

    python -m tests.client.make_rules
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from pathlib import Path

from server.engine import VARIANTS, Game

__all__ = ["RULES_PATH", "engine_rules", "main", "rules_module"]

RULES_PATH = Path(__file__).resolve().parents[2] / "client" / "models" / "rules.py"


#: The rulings file the engine's docstrings cite is the project's own; players have the
#: docs (docs/rules/, one page per family), so the rules screen points there.
_RULINGS = "docs/rules/"


def _plain(text: str) -> str:
    """Docstring markup read as prose: roles and double backquotes dropped, and the
    rulings cited where a player can read them."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "").replace("*", "").replace("RULES.md", _RULINGS)


def _paragraphs(text: str) -> str:
    """Docstring lines joined into paragraphs (list items kept on their own lines)."""
    out: list[str] = []
    for block in text.strip().split("\n\n"):
        lines = [line.strip() for line in block.splitlines()]
        if any(line.startswith("* ") for line in lines):
            items: list[str] = []
            for line in lines:
                if line.startswith("* ") or not items:
                    items.append(line)
                else:
                    items[-1] += " " + line
            out.append("\n".join(items))
        else:
            out.append(" ".join(lines))
    return "\n\n".join(out)


def _own_words(game: Game) -> str:
    """A variant's own rules: its summary, then its class docstring."""
    cls = type(game)
    own = inspect.getdoc(cls) or ""
    return "\n\n".join(part for part in (cls.summary, _paragraphs(_plain(own))) if part)


def _family(game: Game) -> tuple[str, str]:
    """A variant's family (its engine module's last name) and the family's rules text."""
    module = sys.modules[type(game).__module__]
    text = inspect.getdoc(module) or ""
    return module.__name__.rsplit(".", 1)[-1], _paragraphs(_plain(text))


def engine_rules(game: Game) -> str:
    """A variant's rules text: its summary, its own docstring, its family's docstring."""
    parts = [_own_words(game), _family(game)[1]]
    return "\n\n".join(part for part in parts if part)


def _literal(text: str) -> str:
    """A string literal in the house format (double quotes), so ruff format keeps it."""
    return json.dumps(text, ensure_ascii=False)


def _chunks(text: str, indent: str) -> list[str]:
    """``text`` as adjacent string literals of at most about 70 characters, one a line."""
    chunks = re.findall(r".{1,70}(?:\s+|$)|.{1,70}", text, re.S)
    return [f"{indent}{_literal(chunk)}" for chunk in chunks]


def rules_module() -> str:
    """The text of ``client/models/rules.py``: each family's words once, each variant's own."""
    families: dict[str, str] = {}
    variants: list[tuple[str, str, str]] = []
    for variant, game in sorted(VARIANTS.items()):
        family, text = _family(game)
        families[family] = text
        variants.append((variant, family, _own_words(game)))
    lines = [
        '"""Each variant\'s rules in the engine\'s own words, for the rules screen (``?``).',
        "",
        "Written by ``python -m tests.client.make_rules`` from the engine's descriptions;",
        "edit the engine's docstrings, not this file. A test checks the copy is current.",
        "A family's rules (its engine module's docstring) are written once and follow the",
        "words of each of its variants.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        '__all__ = ["RULES"]',
        "",
        "#: Each family's rules, shared by its variants: by the engine module's name.",
        "_FAMILIES: dict[str, str] = {",
    ]
    for family, text in sorted(families.items()):
        lines.append(f"    {_literal(family)}: (")
        lines += _chunks(text, " " * 8)
        lines.append("    ),")
    lines += [
        "}",
        "",
        "#: Each variant's family and its own words (its summary and its docstring).",
        "_VARIANTS: dict[str, tuple[str, str]] = {",
    ]
    for variant, family, own in variants:
        lines.append(f"    {_literal(variant)}: (")
        lines.append(f"        {_literal(family)},")
        lines.append("        (")
        lines += _chunks(own, " " * 12)
        lines.append("        ),")
        lines.append("    ),")
    lines += [
        "}",
        "",
        "#: Each variant's whole rules text: its own words, then its family's.",
        "RULES: dict[str, str] = {",
        '    variant: "\\n\\n".join(part for part in (own, _FAMILIES[family]) if part)',
        "    for variant, (family, own) in _VARIANTS.items()",
        "}",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    RULES_PATH.write_text(rules_module(), encoding="utf-8")
    print(f"wrote {RULES_PATH}")


if __name__ == "__main__":
    main()
