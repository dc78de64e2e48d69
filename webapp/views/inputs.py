"""Text and JSON at the boundary: what a request may carry into the games, checked once.

A request's text (query, form fields, JSON strings) must be valid Unicode without
control characters (a tab, CR and LF only where a field is multi-line); a query or
form field no longer than ``MAX_FIELD`` (``MAX_MULTILINE`` if multi-line, ``LONGEST`` for
the fields whose page states more; a JSON string is bounded by the body's size); a JSON body
must be an object nested at most ``MAX_DEPTH`` deep. Anything else is a 400 that names the
field and the problem (in a multi-line field, its line), before any view runs: nothing
malformed is stored, so nothing malformed can break a page later.

The forms whose pages promise more than the app's request limits (``MAX_CONTENT_LENGTH``,
``MAX_FORM_MEMORY_SIZE``) get their own, ``FORM_LIMITS``, set before the form is read
(``widen_form_limits``): a pasted list of ``player_list.MAX_PLAYERS`` players with every cell
at its longest, in any script, percent-encoded; an earlier EloDI list of ``MAX_LIST_BYTES``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, Final

from flask import abort, request
from flask_babel import gettext as _  # type: ignore[import-untyped]

from rules_core.player_list import MAX_TEXT as MAX_PLAYER_LIST

from ..records.elodi_list import MAX_LIST_BYTES

MAX_DEPTH: Final = 16  # a device message or slip is a few levels deep
MAX_FIELD: Final = 2000  # characters in one query or form field...
MAX_MULTILINE: Final = 50_000  # ...or in a multi-line one (a reason, a note; the player list: LONGEST)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_MULTILINE: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
MULTILINE: Final = frozenset({"players", "reason", "notes", "note", "arbiters"})  # fields that may hold line breaks
LONGEST: Final = {"players": MAX_PLAYER_LIST}  # characters, for a field whose page states more than MAX_MULTILINE
_PLAYER_FORM: Final = MAX_PLAYER_LIST * 4 * 3 + 64 * 1024  # 4 UTF-8 bytes a character, each as %XX; other fields
FORM_LIMITS: Final = {  # endpoint -> bytes of its request body
    "arbiter.create_duplicate": _PLAYER_FORM,
    "arbiter.add_players": _PLAYER_FORM,
    "tournaments.manage": _PLAYER_FORM,  # a tournament's list
    "elodi.import_previous": 2 * MAX_LIST_BYTES,  # a list somewhat over its limit is told so, not answered 413
}
_STRINGS: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS: Final = re.compile(rb"[\[\]{}]")


def text_problem(value: str, multiline: bool = False, longest: int | None = None) -> str | None:
    """Why ``value`` cannot be taken as text (in Spanish), or None. ``longest`` defaults to
    the field's limit (``MAX_FIELD``, or ``MAX_MULTILINE`` for a multi-line field)."""
    surrogate = _SURROGATE.search(value)
    if surrogate:
        why = _("contiene un carácter Unicode no válido (suplente aislado)")
        return str(why) + _where(value, surrogate, multiline)
    control = (_CONTROL_MULTILINE if multiline else _CONTROL).search(value)
    if control:
        code = ord(control.group())
        return str(_("contiene un carácter de control (código %(c)s)", c=code)) + _where(value, control, multiline)
    longest = longest if longest is not None else MAX_MULTILINE if multiline else MAX_FIELD
    if len(value) > longest:
        return str(_("es demasiado largo (%(n)s caracteres; como mucho %(m)s)", n=len(value), m=longest))
    return None


def _where(value: str, found: re.Match[str], multiline: bool) -> str:
    """`` en la línea N`` of a multi-line value (1-based), else nothing."""
    return str(_(" en la línea %(n)s", n=value.count("\n", 0, found.start()) + 1)) if multiline else ""


def widen_form_limits() -> None:
    """Before every request, ahead of anything that reads the form: a form of ``FORM_LIMITS`` gets its limits."""
    limit = FORM_LIMITS.get(request.endpoint or "")
    if limit is not None:
        request.max_content_length = limit
        request.max_form_memory_size = limit


def check_request_text() -> None:
    """Before every request: the query and form fields are clean text (else 400)."""
    for source in (request.args, request.form):
        for key, value in source.items(multi=True):
            multiline = key in MULTILINE
            for what, problem in ((_("el nombre de campo"), text_problem(key, multiline)),
                                  (key, text_problem(value, multiline, LONGEST.get(key)))):  # fmt: skip
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
