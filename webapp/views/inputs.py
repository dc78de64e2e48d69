"""Text and JSON at the boundary: what a request may carry into the games, checked once.

A request's text (query, form fields, JSON strings) must be valid Unicode without
control characters (a tab, CR and LF only where a field is multi-line); a query or
form field no longer than ``MAX_FIELD`` (``MAX_MULTILINE`` if multi-line; a JSON
string is bounded by the body's size); a JSON body must be an object nested at most ``MAX_DEPTH``
deep. Anything else is a 400 that names the field and the problem, before any view
runs: nothing malformed is stored, so nothing malformed can break a page later.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, Final

from flask import abort, request
from flask_babel import gettext as _  # type: ignore[import-untyped]

MAX_DEPTH: Final = 16  # a device message or slip is a few levels deep
MAX_FIELD: Final = 2000  # characters in one query or form field...
MAX_MULTILINE: Final = 50_000  # ...or in a multi-line one (a pasted player list)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_MULTILINE: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
MULTILINE: Final = frozenset({"players", "reason", "notes", "note"})  # fields that may hold line breaks
_STRINGS: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS: Final = re.compile(rb"[\[\]{}]")


def text_problem(value: str, multiline: bool = False, longest: int | None = None) -> str | None:
    """Why ``value`` cannot be taken as text (in Spanish), or None. ``longest`` defaults to
    the field's limit (``MAX_FIELD``, or ``MAX_MULTILINE`` for a multi-line field)."""
    if _SURROGATE.search(value):
        return str(_("contiene un carácter Unicode no válido (suplente aislado)"))
    control = (_CONTROL_MULTILINE if multiline else _CONTROL).search(value)
    if control:
        return str(_("contiene un carácter de control (código %(c)s)", c=ord(control.group())))
    longest = longest if longest is not None else MAX_MULTILINE if multiline else MAX_FIELD
    if len(value) > longest:
        return str(_("es demasiado largo (%(n)s caracteres; como mucho %(m)s)", n=len(value), m=longest))
    return None


def check_request_text() -> None:
    """Before every request: the query and form fields are clean text (else 400)."""
    for source in (request.args, request.form):
        for key, value in source.items(multi=True):
            for what, text in ((_("el nombre de campo"), key), (key, value)):
                problem = text_problem(text, multiline=key in MULTILINE)
                if problem:
                    abort(400, description=_("El campo %(f)s %(p)s.", f=repr(what[:40]), p=problem))


def json_object() -> dict[str, Any]:
    """The request's JSON body as an object, every string in it clean, or a 400 saying why."""
    raw = request.get_data(cache=True)
    if _depth(raw) > MAX_DEPTH:
        abort(400, description=_("JSON anidado a más de %(n)s niveles", n=MAX_DEPTH))
    try:
        body = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        abort(400, description=_("se esperaba un objeto JSON"))
    if not isinstance(body, dict):
        abort(400, description=_("se esperaba un objeto JSON"))
    if _non_finite(body):
        abort(400, description=_("un número del JSON está fuera de rango"))
    for path, text in _strings(body, ""):
        problem = text_problem(text, multiline=path.rsplit(".", 1)[-1] in MULTILINE, longest=len(raw))
        if problem:
            abort(400, description=_("El valor %(f)s %(p)s.", f=repr(path[:60] or "?"), p=problem))
    return body


def positive_int(value: Any, name: str) -> int:
    """``value`` as a whole number ≥ 1 (a JSON integer or its digits), or a 400 naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        abort(400, description=_("%(f)s debe ser un número entero", f=repr(name)))
    if isinstance(value, str):
        if not value.isascii() or not value.isdigit() or len(value) > 6:
            abort(400, description=_("%(f)s debe ser un número entero", f=repr(name)))
        value = int(value)
    if not 1 <= value <= 10**6:
        abort(400, description=_("%(f)s debe ser un número entero positivo", f=repr(name)))
    return int(value)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} no es JSON")  # NaN, Infinity: not in the JSON standard


def _depth(raw: bytes) -> int:
    """How deep ``raw``'s arrays and objects nest (brackets inside strings not counted)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub(b"", raw)):
        depth += 1 if bracket in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _non_finite(value: Any) -> bool:
    """True when a number of the JSON value is not finite (``1e400`` parses as infinity)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_non_finite(item) for item in items)


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string of a JSON value, keys included, with its dotted path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}".lstrip("."), key
            yield from _strings(item, f"{path}.{key}".lstrip("."))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")
