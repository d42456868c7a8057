"""Text that came from a user (a URL value, a typed sentence, an error quoting either) put into the
Markdown of a notice so that it shows as typed: never as a link, emphasis, formula, icon or HTML.

Streamlit renders notices, captions and st.markdown as Markdown with LaTeX (`$…$`), icons
(`:material/…:`) and colour directives (`:red[…]`), so a link's text would otherwise become part of
the app's own message (`?dtype=[Session expired](https://…)` a clickable link in the app's notice).
A Markdown code span is shown character for character; `literal` builds one that no text can close
early: its fence is longer than any run of backticks inside, line breaks (which could end the
paragraph and the span with it) become spaces, and overly long values are cut.
"""

from __future__ import annotations

import re

LIMIT = 80  # characters of a value echoed back; the rest is cut and marked with "…"


def literal(text: str, limit: int = LIMIT) -> str:
    """`text` as a Markdown code span that renders exactly these characters (cut to `limit`)."""
    flat = "".join(ch if ch.isprintable() else " " for ch in str(text))
    cut = len(flat) > limit
    flat = flat[:limit]
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space on each side when both are there: the padding keeps a leading or
    # trailing backtick apart from the fence, and the text's own edge spaces intact.
    return f"{fence} {flat} {fence}" + ("…" if cut else "")
