"""An import contract of our own for ``lint-imports``: no module imports a test module.

A test module (``test_*.py``) holds tests; what several tests share lives in a helper
module beside them (``tests/server/nodes.py``, ``tests/client/scenes.py``, …). Importing
a test module runs its collection-time code a second time and ties one test file's
private helpers to another's, which is how helpers went unfound and drifted. The built-in
contract types match whole module names only, so they cannot say "any module named
``test_*``"; this one can (pyproject.toml registers it under ``contract_types``).
"""

from __future__ import annotations

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck

__all__ = ["TestModulesImportedByNoneContract"]

#: How the name of a test module starts (pytest's default ``python_files``).
TEST_PREFIX = "test_"


class TestModulesImportedByNoneContract(Contract):
    """No module imports a test module of ``packages`` (a module whose last name starts
    with ``test_``), directly; a helper imported by tests and importing none is fine.

    Configuration options:
        - packages: the packages whose test modules no module may import.
    """

    __test__ = False  # not a pytest test class, whatever its name
    type_name = "test_modules_imported_by_none"

    packages = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        roots = [package.name for package in self.packages]  # type: ignore[attr-defined]
        imports: list[tuple[str, str, list[int]]] = []
        for module in sorted(graph.modules):
            in_packages = any(module == root or module.startswith(root + ".") for root in roots)
            if not in_packages or not module.rsplit(".", 1)[-1].startswith(TEST_PREFIX):
                continue
            for importer in sorted(graph.find_modules_that_directly_import(module)):
                details = graph.get_import_details(importer=importer, imported=module)
                lines = sorted({detail["line_number"] for detail in details})
                imports.append((importer, module, lines))
        return ContractCheck(kept=not imports, metadata={"imports": imports})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported, lines in check.metadata["imports"]:
            where = ", ".join(f"l.{line}" for line in lines)
            output.print_error(f"{importer} -> {imported} ({where})", bold=False)
            output.new_line()
        output.print("Move what both need into a helper module that is not a test module.")
