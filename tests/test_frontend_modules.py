"""The frontend's modules stay small, import only files that exist and
names those files export, never import each other in a circle, and each
appears in frontend/README.md's map of modules.

No browser and no Node.js: the modules are plain ES modules, formatted by
prettier, so their static ``import``/``export ... from`` statements start at
column 0 and dynamic ``import("...")`` calls are found once comments are
stripped (JSDoc's ``import("...").Type`` lives in comments). ``vendor/``
(uPlot) is third-party and left out.

Why each rule: a file over 600 lines mixes concerns (the project's module
limit); a missing file or export only shows up in the browser, as a blank
tab; an import cycle makes evaluation order decide whether a binding is
initialised yet; a module the map does not name is one a newcomer cannot
find.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

FRONTEND = Path(__file__).resolve().parents[1] / "frontend"
VENDOR = FRONTEND / "vendor"
MAX_LINES = 600  # lines a module, the project's limit
# index.js is served at the plugin's root and reaches the rest under
# static/ (plugin.py); every other module imports by its real path.
STATIC_PREFIX = "./static/"

_STATIC = re.compile(
    r"^(?:import|export)\b[^;]*?\bfrom\s*[\"']([^\"']+)[\"']"
    r"|^import\s*[\"']([^\"']+)[\"']",
    re.M | re.S,
)
_DYNAMIC = re.compile(r"\bimport\(\s*[\"']([^\"']+)[\"']\s*\)")
_NAMED_IMPORT = re.compile(
    r"^import\s*(?:\w+\s*,\s*)?\{([^}]*)\}\s*from\s*[\"']([^\"']+)[\"']",
    re.M | re.S,
)
_DECLARED_EXPORT = re.compile(
    r"^export\s+(?:default\s+)?(?:async\s+)?"
    r"(?:function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)",
    re.M,
)
_LIST_EXPORT = re.compile(
    r"^export\s*\{([^}]*)\}(?:\s*from\s*[\"']([^\"']+)[\"'])?", re.M | re.S
)
# After these, "/" starts a regular expression literal, not a division.
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}
_REGEX_KEYWORDS = ("return", "typeof", "case", "do", "else", "in", "of")


def strip_comments(source: str) -> str:
    """``source`` with its comments blanked; strings, template literals and
    regular expression literals kept, line numbers unchanged."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif c == "/" and nxt == "*":
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * source.count("\n", i, end))
            i = end
        elif c in "\"'`" or (c == "/" and _regex_may_start(out)):
            j = i + 1
            in_class = False
            while j < n:
                if source[j] == "\\":
                    j += 2
                    continue
                if c == "/" and source[j] == "[":
                    in_class = True
                elif c == "/" and source[j] == "]":
                    in_class = False
                elif source[j] == c and not in_class:
                    break
                j += 1
            out.append(source[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _regex_may_start(out: list[str]) -> bool:
    text = "".join(out[-40:]).rstrip()
    if not text:
        return True
    if text[-1] in _REGEX_BEFORE:
        return True
    return any(
        text.endswith(k) and not (text[: -len(k)][-1:].isalnum())
        for k in _REGEX_KEYWORDS
    )


def modules() -> list[Path]:
    return sorted(p for p in FRONTEND.rglob("*.js") if VENDOR not in p.parents)


def resolve(importer: Path, spec: str) -> Path:
    if importer == FRONTEND / "index.js" and spec.startswith(STATIC_PREFIX):
        spec = "./" + spec[len(STATIC_PREFIX) :]
    return (importer.parent / spec).resolve()


def imports_of(path: Path) -> list[str]:
    """Module specifiers ``path`` imports, statically or dynamically."""
    code = strip_comments(path.read_text(encoding="utf-8"))
    found = [a or b for a, b in _STATIC.findall(code)]
    found += _DYNAMIC.findall(code)
    return found


def import_graph() -> dict[Path, set[Path]]:
    graph: dict[Path, set[Path]] = {}
    for path in modules():
        graph[path] = {
            resolve(path, spec)
            for spec in imports_of(path)
            if spec.startswith(".")
        }
    return graph


def find_cycles(graph: dict[Path, set[Path]]) -> list[list[Path]]:
    """One cycle a strongly connected component with more than one module
    (or a module importing itself), as the list of modules around it."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    components: list[list[Path]] = []

    def visit(start: Path) -> None:
        # Tarjan's algorithm, iterative (no recursion limit on deep chains).
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def exports_of(path: Path, seen: frozenset[Path] = frozenset()) -> set[str]:
    """Names ``path`` exports, following ``export ... from`` re-exports."""
    code = strip_comments(path.read_text(encoding="utf-8"))
    names = set(_DECLARED_EXPORT.findall(code))
    for body, _source in _LIST_EXPORT.findall(code):
        for item in body.split(","):
            item = item.strip()
            if item:
                names.add(item.split(" as ")[-1].strip())
    if re.search(r"^export\s+default\b", code, re.M):
        names.add("default")
    for match in re.finditer(
        r"^export\s*\*\s*from\s*[\"']([^\"']+)[\"']", code, re.M
    ):
        target = resolve(path, match.group(1))
        if target not in seen:
            names |= exports_of(target, seen | {path}) - {"default"}
    return names


def _rel(path: Path) -> str:
    return str(path.relative_to(FRONTEND))


def test_the_parser_sees_the_known_imports() -> None:
    """Guards the checks below against a parser that finds nothing."""
    graph = import_graph()
    assert len(graph) > 50
    app = FRONTEND / "app.js"
    assert FRONTEND / "views" / "histograms.js" in graph[app]  # dynamic
    assert app in graph[FRONTEND / "index.js"]  # through static/
    assert FRONTEND / "dom.js" in graph[FRONTEND / "views" / "runs.js"]
    # A JSDoc import("...") type is no edge: app.js is only named in one.
    jsdoc_only = FRONTEND / "views" / "histograms.js"
    assert FRONTEND / "app.js" not in graph[jsdoc_only]


def test_strip_comments_keeps_strings_and_regexes() -> None:
    source = (
        'const a = "http://x"; // gone\n'
        "const b = /\\/\\*[/]/g; /* gone\n too */ const c = `//kept`;\n"
    )
    stripped = strip_comments(source)
    assert '"http://x"' in stripped and "gone" not in stripped
    assert "/\\/\\*[/]/g" in stripped and "`//kept`" in stripped
    assert stripped.count("\n") == source.count("\n")


def test_find_cycles_finds_a_planted_cycle() -> None:
    a, b, c, d = (Path(x) for x in "abcd")
    assert find_cycles({a: {b}, b: {c}, c: set(), d: {d}}) == [[d]]
    assert find_cycles({a: {b}, b: {c}, c: {a}, d: {a}}) == [[a, b, c]]


@pytest.mark.parametrize("path", modules(), ids=_rel)
def test_module_is_at_most_600_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, (
        f"{_rel(path)} has {lines} lines (limit {MAX_LINES}): split it "
        "along its seams, as the frontend README's module map shows"
    )


def test_every_relative_import_exists() -> None:
    missing = [
        f"{_rel(importer)} imports {_rel(target)}"
        for importer, targets in import_graph().items()
        for target in sorted(targets)
        if not target.is_file()
    ]
    assert missing == []


def test_every_imported_name_is_exported() -> None:
    missing = []
    for path in modules():
        code = strip_comments(path.read_text(encoding="utf-8"))
        for body, spec in _NAMED_IMPORT.findall(code):
            if not spec.startswith("."):
                continue
            target = resolve(path, spec)
            if not target.is_file():
                continue  # reported by the test above
            exported = exports_of(target)
            for item in body.split(","):
                name = item.strip().split(" as ")[0].strip()
                if name and name not in exported:
                    missing.append(f"{_rel(path)}: {name} from {spec}")
        for body, spec in _LIST_EXPORT.findall(code):
            if not spec or not spec.startswith("."):
                continue
            exported = exports_of(resolve(path, spec))
            for item in body.split(","):
                name = item.strip().split(" as ")[0].strip()
                if name and name not in exported:
                    missing.append(f"{_rel(path)}: re-exports {name}")
    assert missing == []


def test_no_import_cycle() -> None:
    cycles = [
        " -> ".join(_rel(p) for p in cycle)
        for cycle in find_cycles(import_graph())
    ]
    assert cycles == []


def test_every_module_is_in_the_readme_map() -> None:
    """By file name: the map lists a folder's parts under its own line."""
    readme = (FRONTEND / "README.md").read_text(encoding="utf-8")
    unnamed = [_rel(p) for p in modules() if p.name not in readme]
    assert unnamed == []
