"""The package's import structure, read from the source (ast): no cycle between its
modules, counting imports inside functions; no private name taken from another module;
and every import inside a function says why it is there, in a comment.

A module that imports ``spades_sim.a.b`` depends on ``spades_sim.a.b`` (and a name
imported from a package's ``__init__`` on that ``__init__``, which imports what it
re-exports). Imports under ``if TYPE_CHECKING:`` count too: a cycle there is one the
annotations already hide.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "spades_sim"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module of a ``from ... import`` (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    is_package = MODULES[importer].name == "__init__.py"
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(name: str) -> Iterator[tuple[ast.stmt, str, list[str]]]:
    """Every import statement of module ``name``: (node, the module imported from, the
    names taken from it); ``import a.b`` gives ``("a.b", [])``."""
    tree = ast.parse(MODULES[name].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            yield node, _resolve(name, node), [a.name for a in node.names]


def dependencies(name: str) -> set[str]:
    """The package's modules ``name`` imports."""
    found = set()
    for _, module, names in imports(name):
        if not module.startswith("spades_sim"):
            continue
        subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
        if subs:
            found |= set(subs)
        if len(subs) < len(names) or not names:  # names defined by the module itself
            found.add(module)
    found.discard(name)
    return {m for m in found if m in MODULES}


def test_every_import_resolves_to_a_module() -> None:
    for name in MODULES:
        for _, module, _names in imports(name):
            if module.startswith("spades_sim"):
                assert module in MODULES, f"{name} imports {module}, which is not a module"


def test_no_import_cycle() -> None:
    graph = {name: dependencies(name) for name in MODULES}
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, "import cycle: " + " -> ".join((*path[path.index(node) :], node))
        if node in done:
            return
        for dep in sorted(graph[node]):
            visit(dep, (*path, node))
        done.add(node)

    for node in graph:
        visit(node, ())


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_private_name_from_another_module() -> None:
    found = []
    for name in MODULES:
        tree = ast.parse(MODULES[name].read_text())
        aliases = set()  # names bound to one of the package's modules
        for node, module, _names in imports(name):
            if not module.startswith("spades_sim") or module == name:
                continue
            if isinstance(node, ast.Import):
                aliases |= {a.asname for a in node.names if a.asname}
                continue
            assert isinstance(node, ast.ImportFrom)
            for alias in node.names:
                if _is_private(alias.name) and f"{module}.{alias.name}" not in MODULES:
                    found.append(f"{name}: from {module} import {alias.name}")
                if f"{module}.{alias.name}" in MODULES:
                    aliases.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _is_private(node.attr)
            ):
                found.append(f"{name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert not found, "private names taken from other modules:\n" + "\n".join(found)


def _function_imports(tree: ast.Module) -> Iterator[ast.stmt]:
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield node


def test_every_function_level_import_says_why() -> None:
    """A comment on the import, on another import of the same block, or on the line
    just above the block."""
    missing = []
    for name, path in MODULES.items():
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        import_lines = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                import_lines |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        for node in _function_imports(tree):
            first = last = node.lineno
            while first - 1 in import_lines or (
                first - 1 >= 1 and not lines[first - 2].strip() and first - 2 in import_lines
            ):
                first -= 1
            while last + 1 in import_lines:
                last += 1
            block = [lines[i - 1] for i in range(first - 1, last + 1) if i >= 1]
            if not any("#" in line for line in block):
                missing.append(f"{name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not missing, "function-level imports without a reason:\n" + "\n".join(missing)
