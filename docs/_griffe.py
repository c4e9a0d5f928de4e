"""A griffe extension for the API reference: doctest examples shown as code.

The docstrings are plain text with ``>>>`` examples (run by pytest's doctest collection);
read as Markdown, an example line like ``m["parts"]["00000"]`` would be taken for a
reference link. This wraps every run of example lines (the prompts and the output under
them, up to a blank line) in a fenced ``pycon`` block.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_examples(text: str) -> str:
    """``text`` with each block of doctest lines fenced.

    >>> print(fence_examples("Sum:\\n\\n>>> 1 + 1\\n2\\n\\nDone."))
    Sum:
    <BLANKLINE>
    ```pycon
    >>> 1 + 1
    2
    ```
    <BLANKLINE>
    Done.
    """
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if not inside and line.lstrip().startswith(">>>"):
            out.append("```pycon")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence the doctest examples of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_examples(obj.docstring.value)
