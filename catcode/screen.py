"""``Screen``: the rich console catcode draws the terminal with. Only what catcode itself draws reaches the terminal
as control sequences (its styles, the cursor moves of its live views); a control character in the text it is
given — an escape sequence in the model's reply, in a tool's output or in a file's name — is shown as a sign
(``text.visible``: ``␛]0;title␇``), never obeyed.

The places that show such text make it visible themselves, before rich measures it (so that lines wrap as they
look, and so that rich, which silently drops CR, backspace, VT and FF, drops nothing); the console is the net under
all of them, whatever way text reaches it. Importing this imports rich: the front ends do, when they first draw."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from catcode.text import visible


class Screen(Console):
    """A ``rich`` console whose text segments can hold no control character; control segments (rich's cursor
    moves, made by catcode's own live views) pass as they are."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        """Rich's rendering, with every text segment made visible."""
        for segment in super().render(renderable, options):
            if segment.control is None:
                shown = visible(segment.text)
                if shown is not segment.text:
                    segment = Segment(shown, segment.style)
            yield segment
