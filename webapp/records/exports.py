"""Tables as files people open: XLSX with typed cells, CSV a Spanish spreadsheet reads right.

* XLSX (openpyxl): numbers are numbers, text is text, always: a text cell is stored as
  a string even when it starts with ``=`` (openpyxl would otherwise store a formula),
  so no formula is ever evaluated. One sheet per table, its header bold and frozen, each column
  as wide as its longest cell (``MIN_WIDTH`` to ``MAX_WIDTH`` characters), a decimal number
  shown with two decimals.
* CSV: UTF-8 with a byte-order mark (so Excel reads ``BARREÑA``, not ``BARREÃ‘A``),
  semicolon-separated with decimal commas (what a Spanish-locale spreadsheet expects),
  one header line, risky text behind an apostrophe (``results_csv.as_text_cell``).
* Stored text that a format cannot hold never fails an export: a control character XLSX
  refuses (openpyxl: XML 1.0 has no place for it) or a lone surrogate UTF-8 cannot encode
  is written as U+FFFD (``printable``); a name stored before the boundary checked it still exports.
* ``export_name``: a file name that says which game and when:
  ``open-de-primavera_2026-04-12_clasificacion.xlsx``.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Final

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet
from werkzeug.wrappers import Response

from rules_core.results_csv import Table, as_text_cell

from ..services.store import GameRecord
from .timezone import local_date

XLSX_TYPE: Final = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_TYPE: Final = "text/csv; charset=utf-8"
MAX_SHEET_NAME: Final = 31  # Excel's limit
MIN_WIDTH, MAX_WIDTH = 6, 50  # a column's width in characters
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def to_xlsx(sheets: Mapping[str, Table]) -> bytes:
    """A workbook with one sheet per table, in order."""
    book = Workbook()
    for index, (title, (header, rows)) in enumerate(sheets.items()):
        sheet = book.worksheets[0] if index == 0 else book.create_sheet()
        sheet.title = _sheet_title(title)
        sheet.append([_xlsx_value(value) for value in header])
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for row in rows:
            sheet.append([_xlsx_value(value) for value in row])
            for cell in sheet[sheet.max_row]:
                if isinstance(cell.value, str):
                    cell.data_type = "s"  # text stays text, even "=SUM(A1)"
                elif isinstance(cell.value, float):
                    cell.number_format = "0.00"
        sheet.freeze_panes = "A2"
        _widths(sheet, [header, *rows])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _widths(sheet: Worksheet, rows: Sequence[Sequence[Any]]) -> None:
    """Each column as wide as its longest cell, within ``MIN_WIDTH`` and ``MAX_WIDTH`` characters."""
    longest: dict[int, int] = {}
    for row in rows:
        for index, value in enumerate(row, start=1):
            shown = f"{value:.2f}" if isinstance(value, float) else str(value if value is not None else "")
            longest[index] = max(longest.get(index, 0), len(shown))
    for index, length in longest.items():
        sheet.column_dimensions[get_column_letter(index)].width = min(MAX_WIDTH, max(MIN_WIDTH, length + 2))


def to_csv(table: Table) -> bytes:
    """The table as CSV for a Spanish spreadsheet (see the module docstring)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    header, rows = table
    writer.writerow([_csv_value(value) for value in header])
    for row in rows:
        writer.writerow([_csv_value(value) for value in row])
    return "\ufeff".encode() + out.getvalue().encode("utf-8")


def table_download(record: GameRecord, what: str, table: Table, kind: str) -> Response:
    """``table`` as an XLSX (``kind`` "xlsx") or CSV file named after the game, its date and ``what``."""
    name = export_name(record.name, local_date(record.created_at), what, kind)
    body, mimetype = (to_xlsx({what: table}), XLSX_TYPE) if kind == "xlsx" else (to_csv(table), CSV_TYPE)
    return Response(body, content_type=mimetype, headers=attachment(name))


def export_name(game: str, day: date | str, what: str, extension: str) -> str:
    """``<game>_<YYYY-MM-DD>_<what>.<extension>``, the game's name in plain lowercase ASCII."""
    return f"{slug(game) or 'partida'}_{day}_{slug(what)}.{extension}"


def slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:60]


def _sheet_title(title: str) -> str:
    return re.sub(r"[\[\]:*?/\\]", " ", printable(title, xml=True))[:MAX_SHEET_NAME] or "hoja"


def printable(text: str, xml: bool = False) -> str:
    """``text`` with each lone surrogate, and with ``xml`` each character XML 1.0 cannot hold, as U+FFFD."""
    text = _SURROGATE.sub("\ufffd", text)
    return ILLEGAL_CHARACTERS_RE.sub("\ufffd", text) if xml else text


def _xlsx_value(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value, xml=True)
    return value if isinstance(value, (int, float)) or value is None else printable(str(value), xml=True)


def _csv_value(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.2f}".replace(".", ",")
    cell = as_text_cell(value)
    return printable(cell) if isinstance(cell, str) else cell


def attachment(name: str) -> dict[str, str]:
    """The ``Content-Disposition`` header of a download named ``name`` (RFC 6266, UTF-8 safe)."""
    ascii_name = name.encode("ascii", "replace").decode().replace("?", "_").replace('"', "")
    return {"Content-Disposition": f'attachment; filename="{ascii_name}"'}


def tables_of(sheets: Sequence[tuple[str, Table]]) -> dict[str, Table]:
    """An ordered mapping of sheet name to table (names made unique)."""
    found: dict[str, Table] = {}
    for title, table in sheets:
        name = title
        while name in found:
            name += "'"
        found[name] = table
    return found
