"""What every screen must hold to at every size, checked in the page (the screen tests' helpers).

``fits(page, shots, name)`` lays the page out at each of ``SIZES`` and checks, at each: the
board square and whole; every text on screen and inside any box that clips it; no word broken
across two lines (a name wraps between words, or after the hyphen of a compound name); every
play's blank shown as a blank (a circled capital), never as a lowercase letter; a banner
(ALCEN, TIEMPO, the director's notices) covering no other text; the standings' rows shown whole. A screenshot of each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SIZES = [(1024, 768), (1280, 720), (1920, 1080), (1920, 1200), (3840, 2160), (1080, 1920)]

# Every text node shown: its boxes inside the viewport and inside each ancestor that clips.
OFF_SCREEN_JS = """() => {
  const W = innerWidth, H = innerHeight, bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || el.closest('script') || el.getClientRects().length === 0) continue;
    if (getComputedStyle(el).visibility !== 'visible') continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (r.width === 0 || r.height === 0) continue;
      let ok = r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;
      for (let a = el; ok && a && a !== document.documentElement; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const b = a.getBoundingClientRect();
        ok = r.left >= b.left - 0.5 && r.right <= b.right + 0.5 && r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5;
      }
      if (!ok) { bad.push(text.slice(0, 50) + ' @' + [r.left, r.top, r.right, r.bottom].map(Math.round)); break; }
    }
  }
  return bad;
}"""

# Every word shown (the letters between spaces, within one block; a compound name may break
# after its hyphen): its boxes, Range.getClientRects, all on one line. A word may run over
# several text nodes (a play with a blank marked).
BROKEN_WORDS_JS = """() => {
  const bad = [];
  const blockOf = (el) => { while (el && getComputedStyle(el).display.startsWith('inline')) el = el.parentElement; return el; };
  const words = [];
  let word = [], block = null;
  const end = () => { if (word.length) words.push(word); word = []; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const el = n.parentElement;
    if (el.closest('script') || el.getClientRects().length === 0 || getComputedStyle(el).visibility !== 'visible') { end(); continue; }
    const b = blockOf(el);
    if (b !== block) { end(); block = b; }
    for (let i = 0; i < n.data.length; i++) {
      if (/\\s/.test(n.data[i])) { end(); continue; }
      word.push([n, i]);
      if (n.data[i] === '-') end();
    }
  }
  end();
  for (const w of words) {
    const range = document.createRange();
    range.setStart(w[0][0], w[0][1]);
    range.setEnd(w[w.length - 1][0], w[w.length - 1][1] + 1);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (rects.some((r) => r.top >= rects[0].bottom - 1 || r.bottom <= rects[0].top + 1)) bad.push(range.toString());
  }
  return bad;
}"""

# A play written with a lowercase letter on screen (innerText shows what is drawn: a marked
# blank is drawn as a capital), and any marked blank not drawn as a circled capital.
BLANKS_JS = """() => {
  const bad = [];
  const lowercasePlay = /(?:^|[\\s(:])(?:[A-O]\\d{1,2}|\\d{1,2}[A-O])[ -]+\\S*\\p{Ll}/u;
  for (const line of document.body.innerText.split('\\n')) if (lowercasePlay.test(line)) bad.push(line);
  let marked = 0;
  for (const mark of document.querySelectorAll('.blank-letter')) {
    if (!mark.getClientRects().length) continue;
    marked += 1;
    const s = getComputedStyle(mark);
    if (s.textTransform !== 'uppercase' || s.borderTopStyle === 'none' || parseFloat(s.borderTopWidth) < 1) bad.push('unmarked ' + mark.textContent);
  }
  for (const tile of document.querySelectorAll('.tile.blank .letter')) {
    if (tile.textContent !== tile.textContent.toUpperCase()) bad.push('tile ' + tile.textContent);
  }
  return {bad, marked};
}"""

# The texts a banner (ALCEN, TIEMPO; the director's notices) covers: null when no banner is shown.
BANNERS = ("#clock.banner .clock-note", "#notices:not([hidden])")
BANNER_JS = """(selector) => {
  const banner = document.querySelector(selector);
  if (!banner || !banner.getClientRects().length) return null;
  const b = banner.getBoundingClientRect(), hits = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const el = n.parentElement;
    if (!n.textContent.trim() || banner.contains(el) || el.closest('script') || !el.getClientRects().length) continue;
    if (getComputedStyle(el).visibility !== 'visible') continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (r.width && r.height && r.left < b.right - 0.5 && r.right > b.left + 0.5 && r.top < b.bottom - 0.5 && r.bottom > b.top + 0.5) {
        hits.push(n.textContent.trim().slice(0, 40)); break;
      }
    }
  }
  return hits;
}"""

# The standings as shown: every row (name, top, bottom, on this page) and the box that holds them.
ROWS_JS = """() => {
  const holder = document.querySelector('#standings');
  if (!holder || !holder.getClientRects().length || document.querySelector('#summary-view').hidden) return null;
  const h = holder.getBoundingClientRect();
  const rows = [...holder.querySelectorAll('tbody tr')].map((r) => {
    const b = r.getBoundingClientRect();
    return [r.querySelector('td.name').textContent, b.top, b.bottom, !r.classList.contains('off')];
  });
  return {top: h.top, bottom: h.bottom, rows};
}"""


def shown_rows(page: Any) -> list[str]:
    """The names on the standings' page shown, each row checked whole inside its box."""
    laid = page.evaluate(ROWS_JS)
    if laid is None:
        return []
    shown = [row for row in laid["rows"] if row[3]]
    cut = [row[0] for row in shown if row[1] < laid["top"] - 0.5 or row[2] > laid["bottom"] + 0.5]
    assert cut == [], f"rows cut by the page's edge: {cut}"
    return [row[0] for row in shown]


# The board as laid out, and the window's size: null when no board is shown.
BOARD_JS = """() => {
  const b = document.querySelector('#board');
  if (!b || !b.getClientRects().length || getComputedStyle(b).visibility !== 'visible') return null;
  const r = b.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height, W: innerWidth, H: innerHeight};
}"""


def problems_here(page: Any) -> list[str]:
    """What is wrong on the page (or a frame of it: a stream's scene) as laid out now (see the module docstring)."""
    found = []
    box = page.evaluate(BOARD_JS)
    if box is not None:
        if abs(box["width"] - box["height"]) >= 2 or box["x"] < 0 or box["y"] < 0 or \
                box["x"] + box["width"] > box["W"] or box["y"] + box["height"] > box["H"]:  # fmt: skip
            found.append(f"board {box}")
    for label, script in (("off screen", OFF_SCREEN_JS), ("word broken", BROKEN_WORDS_JS)):
        bad = page.evaluate(script)
        if bad:
            found.append(f"{label}: {bad}")
    blanks = page.evaluate(BLANKS_JS)["bad"]
    if blanks:
        found.append(f"blank as a letter: {blanks}")
    for banner in BANNERS:
        covered = page.evaluate(BANNER_JS, banner)
        if covered:
            found.append(f"banner {banner} covers: {covered}")
    try:
        shown_rows(page)
    except AssertionError as error:
        found.append(str(error))
    return found


def fits(page: Any, shots: Path, name: str) -> None:
    """At each size: ``problems_here`` finds nothing; a screenshot each."""
    problems = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)  # the page lays itself out again on resize
        page.screenshot(path=str(shots / f"{name}-{width}x{height}.png"))
        problems += [f"{name} {width}x{height}: {p}" for p in problems_here(page)]
    assert problems == [], problems


def blanks_marked(page: Any) -> int:
    """How many blanks of written plays the page shows marked (0 when a play shows none)."""
    return int(page.evaluate(BLANKS_JS)["marked"])


def standings_pages(page: Any) -> list[list[str]]:
    """The standings page by page as the operator turns them (space or arrow): from the board,
    the summary's pages in turn, until the board again. Each page's rows checked whole."""
    for _ in range(30):  # to the board first
        if page.locator("#summary-view").is_hidden():
            break
        page.keyboard.press("ArrowRight")
    pages = []
    page.keyboard.press("ArrowRight")
    while page.locator("#summary-view").is_visible() and len(pages) < 30:
        pages.append(shown_rows(page))
        page.keyboard.press("ArrowRight")
    return pages


def all_standings(page: Any) -> list[str]:
    """Every name of the standings, in order (on this page or another)."""
    return list(page.evaluate("() => [...document.querySelectorAll('#standings tbody td.name')].map(n => n.textContent)"))
