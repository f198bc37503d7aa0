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

    def keys_content(self) -> Content:
        parts: list[Content] = []
        actions: set[str] = set()
        for key, active in self.screen.active_bindings.items():
            binding, enabled = active.binding, active.enabled
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            display = self.app.get_key_display(binding)
            click = f" @click=app.simulate_key({key!r})"
            if enabled:
                parts.append(Content.assemble(
                    (display, "bold $footer-key-foreground" + click),
                    (f" {binding.description}", "$footer-description-foreground" + click),
                ))
            else:
                parts.append(Content.styled(f"{display} {binding.description}", "dim"))
        if self.app.ENABLE_COMMAND_PALETTE:
            parts.append(Content.assemble(
                ("^p", "bold $footer-key-foreground @click=app.command_palette"),
                (" palette", "$footer-description-foreground @click=app.command_palette"),
            ))
        return Content(" ").join([Content(""), *parts])
