"""The client's own layers: models below widgets below screens, and no copied protocol rules."""

from __future__ import annotations

import ast
from pathlib import Path

from client.app import BallroomApp
from client.screens.base import Host

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


def test_screens_import_no_other_screen_nor_the_app() -> None:
    """Screens open pages by route (client/navigation.py builds them): no screen imports
    another screen, the navigation or the app; the shared base is all they import of screens/."""
    allowed = {"client.screens.base"}
    for module, names in _imports("screens").items():
        bad = [
            n
            for n in names
            if (n.startswith("client.screens.") and n not in allowed)
            or n in ("client.app", "client.navigation")
        ]
        assert not bad, f"{module} imports {bad}"


def test_only_the_navigation_and_the_app_import_screens() -> None:
    """Outside screens/, the navigation is the one module that builds screens; the app
    imports it and the shared base (to hand screens what the server says)."""
    users = {
        path.name
        for path in CLIENT.glob("*.py")
        if any(n.startswith("client.screens") for n in _imports_of(path))
    }
    assert users <= {"navigation.py", "app.py"}, users
    app = _imports_of(CLIENT / "app.py")
    assert {n for n in app if n.startswith("client.screens")} == {"client.screens.base"}


def test_no_client_module_imports_inside_a_function_without_saying_why() -> None:
    """Imports sit at the top of a module; the few inside a function (heavy libraries a
    command loads only when it runs) carry a comment saying so just above."""
    for path in CLIENT.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    above = lines[inner.lineno - 2].strip()
                    said = above.startswith("#") or lines[inner.lineno - 3].strip().startswith("#")
                    assert said, f"{path.name}:{inner.lineno} imports inside a function"


def test_the_app_is_what_screens_take_it_for() -> None:
    """BallroomApp meets the screens' Host protocol (mypy checks this assignment)."""
    host: Host = BallroomApp("ws://127.0.0.1:9/", "Ann")
    assert host.player_name == "Ann"


def _imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names
