"""The key line at the bottom: what each key does now, greyed when it cannot act.

Textual's `Footer` mounts a widget per key and recomposes them all whenever bindings
change; this is one `Static` rendering the same information (`screen.active_bindings`,
so remapped keys show as remapped), cheaper to mount on the way to the first paint.
Each key is clickable.
"""

from __future__ import annotations

from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        link-style: none;
        link-background: transparent;
        link-style-hover: reverse;
    }
    """

    def __init__(self) -> None:
        super().__init__(Content(""), id="keys", markup=False)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.update(self.keys_content())

    def on_resize(self) -> None:
        self.update(self.keys_content())

    def keys_content(self) -> Content:
        """What fits the width. Help and quit always show; what cannot act now goes
        first, then the palette hint, then long names shorten, then the least used keys
        drop from the right."""
        items: list[_Item] = []
        actions: set[str] = set()
        can_act = getattr(self.screen, "can_act", None)
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            enabled = active.enabled and (can_act is None or can_act(binding.action))
            items.append(_Item(key, self.app.get_key_display(binding), binding.description,
                               enabled, binding.action in PINNED))
        palette = self.app.ENABLE_COMMAND_PALETTE
        width = self.size.width or 200
        for step in range(4 + len(items)):
            shown = _fit_step(items, step)
            if step >= 2:
                palette = False
            if _width(shown, palette) <= width:
                break
        return _render(shown, palette)


PINNED = ("help", "quit")
SHORT = {"Re-verify": "Verify", "space": "␣"}


class _Item:
    __slots__ = ("description", "display", "enabled", "key", "pinned")

    def __init__(self, key: str, display: str, description: str, enabled: bool,
                 pinned: bool) -> None:
        self.key, self.display, self.description = key, display, description
        self.enabled, self.pinned = enabled, pinned

    def short(self) -> _Item:
        return _Item(self.key, SHORT.get(self.display, self.display),
                     SHORT.get(self.description, self.description), self.enabled,
                     self.pinned)


def _fit_step(items: list[_Item], step: int) -> list[_Item]:
    """Step 0: all; 1: without what cannot act; 2: and no palette hint; 3: short names;
    4 and on: one more unpinned key dropped from the right each step."""
    out = items if step == 0 else [i for i in items if i.enabled or i.pinned]
    if step >= 3:
        out = [i.short() for i in out]
    drop = step - 3
    if drop > 0:
        unpinned = [i for i in out if not i.pinned]
        keep = set(map(id, unpinned[: max(0, len(unpinned) - drop)]))
        out = [i for i in out if i.pinned or id(i) in keep]
    return out


def _width(items: list[_Item], palette: bool) -> int:
    cells = sum(len(i.display) + 1 + len(i.description) + 1 for i in items) + 1
    return cells + (len(" ^p palette") if palette else 0)


def _render(items: list[_Item], palette: bool) -> Content:
    parts: list[Content] = []
    for item in items:
        click = f" @click=app.simulate_key({item.key!r})"
        if item.enabled:
            parts.append(Content.assemble(
                (item.display, "bold $footer-key-foreground" + click),
                (f" {item.description}", "$footer-description-foreground" + click),
            ))
        else:
            parts.append(Content.styled(f"{item.display} {item.description}", "dim"))
    if palette:
        parts.append(Content.assemble(
            ("^p", "bold $footer-key-foreground @click=app.command_palette"),
            (" palette", "$footer-description-foreground @click=app.command_palette"),
        ))
    return Content(" ").join([Content(""), *parts])
