"""The fact list: a Line-API ScrollView that renders only the rows on screen.

Toolong's `LogLines` pattern: `render_line(y)` builds a row's strip on demand and caches
it keyed on the row's version, so 10,000 facts cost no more to show, scroll or move
through than 10 (DataTable measures every cell up front: seconds at this size).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from reviewer.tui.rows import FactRow
from reviewer.tui.safe_text import one_line

GLYPHS = {"pending": "·", "approved": "✓", "rejected": "✗"}
CATEGORY_WIDTH = 11
WIDE = 100  # from this width flags are words, below it symbols


def flags(row: FactRow, wide: bool, grade: str | None = None) -> list[tuple[str, str]]:
    """(text, component class) of a row's flags, in the order the person reads them."""
    out: list[tuple[str, str]] = []
    if row.stale and grade == "elsewhere":  # only other lines of its files changed
        out.append(("stale elsewhere" if wide else "⟳~", "fact-list--info"))
    elif row.stale:
        out.append(("stale" if wide else "⟳stale", "fact-list--stale"))
    if not row.grounded:
        out.append(("ungrounded" if wide else "?", "fact-list--flag"))
    if row.missing:
        out.append(("missing file" if wide else "!", "fact-list--flag"))
    if row.times_seen > 1:
        out.append((f"seen {row.times_seen}" if wide else f"×{row.times_seen}", "fact-list--info"))
    if row.used:
        out.append((f"used {row.used}" if wide else f"↑{row.used}", "fact-list--info"))
    if row.personal:
        out.append(("personal" if wide else "⌂", "fact-list--info"))
    return out


def fit(text: str, width: int) -> str:
    """Exactly `width` cells: padded, or cut with an ellipsis."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + "…"


class FactList(ScrollView, can_focus=True):
    """Rows of facts; the cursor row is the one the keys act on."""

    BINDINGS = [  # noqa: RUF012
        Binding("down,j", "cursor_down", "Down", show=False, id="cursor-down"),
        Binding("up,k", "cursor_up", "Up", show=False, id="cursor-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="page-down"),
        Binding("pageup", "page_up", "Page up", show=False, id="page-up"),
        Binding("home,g", "first", "First", show=False, id="first"),
        Binding("end,G", "last", "Last", show=False, id="last"),
    ]

    COMPONENT_CLASSES = {  # noqa: RUF012
        "fact-list--cursor",
        "fact-list--pending",
        "fact-list--approved",
        "fact-list--rejected",
        "fact-list--category",
        "fact-list--confidence",
        "fact-list--decided",
        "fact-list--flag",
        "fact-list--info",
        "fact-list--stale",
        "fact-list--marked",
        "fact-list--empty",
    }

    class Moved(Message):
        """The cursor is on another fact (or on none: the list is empty)."""

        def __init__(self, row: FactRow | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[FactRow] = []
        self._index: dict[int, int] | None = {}
        self.cursor = 0
        self.marked: frozenset[int] | set[int] | object = frozenset()
        self.grades: Mapping[int, str] = {}  # the screen's staleness grades, by fact id
        self.empty_message = "Nothing here."
        self.dim_decided = True  # in the pending view, decided rows stay but fade
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=2000)
        self._styles: dict[str, Style] = {}

    # ---- data ---------------------------------------------------------------------

    def set_rows(
        self, rows: Sequence[FactRow], cursor: int = 0, *, keep_scroll: bool = False
    ) -> None:
        self.rows = list(rows)
        self._index = None  # built on first use: typing in the filter never pays for it
        self.cursor = max(0, min(cursor, len(self.rows) - 1))
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))
        if not keep_scroll:
            self.scroll_to(y=0, animate=False, immediate=True)
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Moved(self.selected))

    @property
    def selected(self) -> FactRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def index_of(self, fact_id: int) -> int | None:
        if self._index is None:
            self._index = {row.id: i for i, row in enumerate(self.rows)}
        return self._index.get(fact_id)

    def move_to(self, index: int) -> None:
        if not self.rows:
            return
        index = max(0, min(index, len(self.rows) - 1))
        old, self.cursor = self.cursor, index
        self.refresh_line(old)
        self.refresh_line(index)
        self._scroll_to_cursor()
        if old != index:
            self.post_message(self.Moved(self.selected))

    def refresh_rows(self, rows: Sequence[FactRow]) -> None:
        """Repaint rows whose state changed (their version keys the cache)."""
        for row in rows:
            i = self.index_of(row.id)
            if i is not None:
                self.refresh_line(i)

    def _scroll_to_cursor(self) -> None:
        height = self.scrollable_content_region.height
        top = round(self.scroll_offset.y)
        if height <= 0:
            return
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    # ---- actions ------------------------------------------------------------------

    def action_cursor_down(self) -> None:
        self.move_to(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_to(self.cursor - 1)

    def action_page_down(self) -> None:
        self.move_to(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_page_up(self) -> None:
        self.move_to(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(len(self.rows) - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = offset.y + round(self.scroll_offset.y)
        if 0 <= index < len(self.rows):
            self.focus()
            self.move_to(index)

    # ---- rendering ----------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))
        self._scroll_to_cursor()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            # The full style resolves translucent colours ($text-muted) against the
            # background; keep its colour and attributes, drop the background, so the
            # cursor's background shows through every cell of its row.
            full = self.get_component_rich_style(f"fact-list--{name}")
            background = name == "cursor"
            style = self._styles[name] = Style(
                color=full.color, bgcolor=full.bgcolor if background else None,
                bold=full.bold, italic=full.italic, dim=full.dim, underline=full.underline,
            )
        return style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + round(self.scroll_offset.y)
        base = self.rich_style
        if not self.rows:
            if y == 1:
                text = fit("  " + self.empty_message, width)
                return Strip([Segment(text, base + self._style("empty"))], width)
            return Strip.blank(width, base)
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[index]
        is_cursor = index == self.cursor
        is_marked = row.id in self.marked  # type: ignore[operator]
        key = (row.id, row.version, width, is_cursor, is_marked, self.dim_decided,
               self.grades.get(row.id))
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_row(row, width, is_marked)
            if is_cursor:
                strip = strip.apply_style(self._style("cursor"))
            strip = strip.apply_style(base)
            self._cache[key] = strip
        return strip

    def _render_row(self, row: FactRow, width: int, marked: bool) -> Strip:
        wide = width >= WIDE
        status = row.status
        decided = self.dim_decided and status != "pending"
        text_style = self._style("decided") if decided else Style()
        segments = [
            Segment("●" if marked else " ", self._style("marked")),
            Segment(GLYPHS.get(status, "?") + " ", self._style(status)),
            Segment(fit(row.category.replace("_", " "), CATEGORY_WIDTH) + " ",
                    self._style("category")),
            Segment(f"{row.confidence:.2f} "[:5], self._style("confidence")),
        ]
        used = sum(seg.cell_length for seg in segments)
        flag_parts = flags(row, wide, self.grades.get(row.id))
        flag_width = sum(cell_len(t) + 1 for t, _ in flag_parts)
        room = width - used - flag_width - 1
        if room < 12 and flag_parts:  # narrow: the fact's words matter more than flags
            flag_parts = flag_parts[:1]
            flag_width = sum(cell_len(t) + 1 for t, _ in flag_parts)
            room = width - used - flag_width - 1
        segments.append(Segment(fit(one_line(row.text), max(0, room)), text_style))
        for text, cls in flag_parts:
            segments.append(Segment(" "))
            segments.append(Segment(text, self._style(cls.removeprefix("fact-list--"))))
        segments.append(Segment(" "))
        return Strip(segments).adjust_cell_length(width)
