"""The client's own layers: models below widgets below screens, and no copied protocol rules."""

from __future__ import annotations

import ast
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "client"


def _imports(package: str) -> dict[str, set[str]]:
    """Every module of ``client/<package>`` and the modules it imports (absolute names)."""
    found: dict[str, set[str]] = {}
    for path in sorted((CLIENT / package).glob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        found[path.name] = names
    return found


def test_widgets_never_import_screens() -> None:
    """A widget draws what it is given: it imports models, never a screen."""
    for module, names in _imports("widgets").items():
        assert not [n for n in names if n.startswith("client.screens")], module


def test_models_import_no_widget_screen_or_textual() -> None:
    """The data models are plain Python: no Textual, no widgets, no screens."""
    for module, names in _imports("models").items():
        bad = [n for n in names if n.startswith(("client.screens", "client.widgets", "textual"))]
        assert not bad, f"{module} imports {bad}"


def test_screens_hold_only_screens() -> None:
    """Data models moved out of screens/: every module there defines a screen or dialog."""
    for path in (CLIENT / "screens").glob("*.py"):
        if path.name == "__init__.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "Screen" in text, f"{path.name} holds no screen"


def test_the_name_rule_comes_from_the_protocol() -> None:
    """No client module restates the display-name length: it reads protocol's PlayerName."""
    for path in CLIENT.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "[:24]" not in text, path
