"""Figures of a report: small PNG images drawn with matplotlib (the ``report`` extra).

Contract
--------
Every function here returns PNG bytes (about 100 dpi, palette-compressed: tens of KB) of
one figure whose every estimate is drawn with its 95% interval (a shaded band around a
line, or error bars on a bar or a point) and whose legend or title carries ``n``.
matplotlib is imported on first use, with the non-interactive Agg backend, so importing
this module costs nothing and needs no display; without matplotlib,
:func:`require_matplotlib` raises :class:`ReportUnavailable`, whose one-line message
names the extra to install.

The inputs are plain numbers (:class:`Series`, :class:`Panel`, lists of
:class:`~spades_sim.analysis.stats.Estimate`), not analysis tables, so the figures can
be tested on known numbers and reused by the studies in ``analyses/``.

>>> s = Series("nil", [0, 1, 2], [0.9, 0.7, 0.4], [0.8, 0.6, 0.3], [0.9, 0.8, 0.5], [90, 80, 40])
>>> s.total_n
210
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from spades_sim.analysis.stats import Estimate

EXTRA_HINT = "pip install 'spades_sim[report]'"
DPI = 100
WIDTH = 7.6  # inches: 760 px at 100 dpi, the width of the report's text column
COLORS = ("#1f5f9e", "#c8553d", "#2a9d5c", "#8a5ac2", "#b8860b", "#5f6b73")
PALETTE_COLORS = 128  # colours kept in the PNG palette: bands blend, text stays crisp


class ReportUnavailable(ImportError):
    """matplotlib (the ``report`` extra) is not installed; the message says how to get it."""


def require_matplotlib() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or :class:`ReportUnavailable`.

    >>> require_matplotlib().get_backend().lower()
    'agg'
    """
    try:
        # matplotlib (about a second to import) only when a report draws
        import matplotlib
    except ImportError:
        raise ReportUnavailable(
            f"the report needs matplotlib, which is not installed: {EXTRA_HINT}"
        ) from None
    matplotlib.use("Agg", force=True)  # no display: render straight to PNG bytes
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 9,
            "axes.titlesize": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.color": "#e4e4e4",
            "grid.linewidth": 0.6,
            "legend.fontsize": 8,
            "legend.frameon": False,
            "svg.hashsalt": "spades_sim",
        }
    )
    return plt


@dataclass(frozen=True)
class Series:
    """One line (or set of bars): an estimate and its 95% interval at each ``x``, with the
    number of observations behind each point."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]
    n: Sequence[int]
    total: int | None = None  # when the points share one sample (shares of a distribution)

    @property
    def total_n(self) -> int:
        """The observations behind the whole series: ``total`` if given, else the sum of
        the points' ``n`` (each case counted at one point)."""
        return int(sum(self.n)) if self.total is None else int(self.total)

    @classmethod
    def of(
        cls, label: str, points: Sequence[tuple[float, Estimate]], total: int | None = None
    ) -> Series:
        """A series from ``(x, estimate)`` pairs.

        >>> Series.of("a", [(1, Estimate(2.0, 1.5, 2.5, 10))]).y
        (2.0,)
        """
        return cls(
            label,
            tuple(x for x, _ in points),
            tuple(e.value for _, e in points),
            tuple(e.low for _, e in points),
            tuple(e.high for _, e in points),
            tuple(e.n for _, e in points),
            total,
        )


@dataclass(frozen=True)
class Panel:
    """One set of axes: series drawn as lines with bands (``"line"``) or grouped bars
    with error bars (``"bar"``)."""

    title: str
    xlabel: str
    ylabel: str
    series: Sequence[Series]
    kind: Literal["line", "bar"] = "line"
    percent: bool = False
    diagonal: bool = False  # draw y = x (calibration)
    reference: float | None = None  # a horizontal reference line (an even split, zero)
    xticklabels: dict[float, str] = field(default_factory=dict)
    n_word: str = "n"  # what the series' n counts, for the legend


def _finish(fig: Any) -> bytes:
    """The figure as palette PNG bytes (quantised with Pillow, which matplotlib needs)."""
    # Pillow (matplotlib's) only when a figure is drawn
    from PIL import Image

    plt = require_matplotlib()
    fig.set_dpi(DPI)
    fig.canvas.draw()  # straight to pixels: no PNG written by matplotlib and read back
    width, height = fig.canvas.get_width_height()
    rgba = fig.canvas.buffer_rgba()
    image = Image.frombuffer("RGBA", (width, height), rgba, "raw", "RGBA", 0, 1).convert("RGB")
    plt.close(fig)
    small = image.quantize(
        colors=PALETTE_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue()


def data_uri(png: bytes) -> str:
    """PNG bytes as a ``data:`` URI, for an ``<img src>`` that needs no file or network.

    >>> data_uri(b"abc")
    'data:image/png;base64,YWJj'
    """
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def percent_label(share: float, _position: object = None) -> str:
    """A tick's label: the share as a percent, whole unless the tick is not.

    >>> percent_label(0.25), percent_label(0.225), percent_label(-0.05)
    ('25%', '22.5%', '-5%')
    """
    percent = round(100 * share, 6)
    return f"{percent:.0f}%" if percent == round(percent) else f"{percent:g}%"


def percent_axis(axis: Any) -> None:
    """Label a matplotlib axis of shares as percents (:func:`percent_label`), its ticks
    on whole percents where the range allows (leading-digit steps of 1, 2, 5 or 10, not
    matplotlib's default 2.5, whose ticks a whole-percent label rounded: 22.5% as 23%)."""
    # matplotlib only when a report draws
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    axis.set_major_locator(MaxNLocator(steps=[1, 2, 5, 10]))
    axis.set_major_formatter(FuncFormatter(percent_label))


def _label(series: Series, n_word: str) -> str:
    return f"{series.label} ({n_word} = {series.total_n:,})"


def _draw_panel(ax: Any, panel: Panel) -> None:
    k = len(panel.series)
    width = 0.8 / max(k, 1)
    for i, s in enumerate(panel.series):
        color = COLORS[i % len(COLORS)]
        x = np.asarray(s.x, dtype=float)
        y = np.asarray(s.y, dtype=float)
        low = np.asarray(s.low, dtype=float)
        high = np.asarray(s.high, dtype=float)
        if not len(x):
            continue
        if panel.kind == "bar":
            offset = (i - (k - 1) / 2) * width
            err = np.vstack([y - low, high - y])
            ax.bar(
                x + offset,
                y,
                width=width * 0.95,
                color=color,
                alpha=0.8,
                label=_label(s, panel.n_word),
            )
            ax.errorbar(
                x + offset, y, yerr=err, fmt="none", ecolor="#222222", elinewidth=0.9, capsize=2
            )
        else:
            ax.fill_between(x, low, high, color=color, alpha=0.18, linewidth=0)
            ax.plot(
                x,
                y,
                "-o",
                color=color,
                markersize=3.5,
                linewidth=1.4,
                label=_label(s, panel.n_word),
            )
    if panel.diagonal:
        lo, hi = ax.get_xlim()
        ax.plot([lo, hi], [lo, hi], "--", color="#888888", linewidth=0.9, label="tricks = bid")
    if panel.reference is not None:
        ax.axhline(panel.reference, color="#888888", linewidth=0.9, linestyle="--")
    if panel.percent:
        percent_axis(ax.yaxis)
    # matplotlib only when a report draws
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # x is a count: bids, hands, cards
    if panel.xticklabels:
        ax.set_xticks(list(panel.xticklabels), list(panel.xticklabels.values()))
    ax.set_title(panel.title)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)


def _band_note(panels: Sequence[Panel]) -> str:
    kinds = {p.kind for p in panels}
    if kinds == {"bar"}:
        return "error bars: 95% intervals"
    if kinds == {"line"}:
        return "shaded: 95% intervals"
    return "shaded bands and error bars: 95% intervals"


def panels_png(panels: Sequence[Panel], columns: int | None = None, height: float = 3.0) -> bytes:
    """One row (or grid) of panels sharing one legend: PNG bytes.

    >>> s = Series("nil", [0, 1], [0.9, 0.7], [0.85, 0.65], [0.94, 0.75], [90, 80])
    >>> png = panels_png([Panel("by spades", "spades", "made", [s], percent=True)])
    >>> png[:4] == b"\\x89PNG"
    True
    """
    plt = require_matplotlib()
    columns = columns or len(panels)
    rows = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(WIDTH, height * rows + 0.5), squeeze=False, sharey=False
    )
    for ax, panel in zip(axes.flat, panels, strict=False):
        _draw_panel(ax, panel)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    per_axes = [ax.get_legend_handles_labels() for ax in list(axes.flat)[: len(panels)]]
    if any(labels != per_axes[0][1] for _, labels in per_axes):
        # the panels count different things (side-games, side-hands): a legend in each
        for ax, (handles, _) in zip(axes.flat, per_axes, strict=False):
            if handles:
                ax.legend(fontsize=7, loc="best")
        fig.text(0.5, 0.01, _band_note(panels), ha="center", va="bottom", fontsize=8)
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        return _finish(fig)
    seen = dict(zip(per_axes[0][1], per_axes[0][0], strict=True))
    fig.legend(
        list(seen.values()),
        list(seen),
        loc="lower center",
        ncol=max(1, min(len(seen), 3)),
        title=_band_note(panels),
        title_fontsize=8,
    )
    fig.tight_layout(rect=(0, 0.06 + 0.05 * math.ceil(len(seen) / 3), 1, 1))
    return _finish(fig)


def forest_png(
    rows: Sequence[tuple[str, Estimate]],
    title: str,
    xlabel: str,
    reference: float | None = 0.0,
    percent: bool = False,
    colors: Sequence[str] | None = None,
) -> bytes:
    """Estimates as points with horizontal 95% intervals, one row each, ``n`` in the
    row labels; a dashed line at ``reference`` (no difference).

    >>> png = forest_png([("paired", Estimate(5, 4, 6, 100)), ("unpaired", Estimate(5, 1, 9, 100))],
    ...                  "A - B", "points per hand")
    >>> len(png) > 1000
    True
    """
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(WIDTH, 0.38 * len(rows) + 1.5))
    ys = np.arange(len(rows))[::-1]
    for y, (_, e), color in zip(ys, rows, colors or [COLORS[0]] * len(rows), strict=False):
        ax.errorbar(
            [e.value],
            [y],
            xerr=[[e.value - e.low], [e.high - e.value]],
            fmt="o",
            color=color,
            ecolor=color,
            capsize=3,
            markersize=4,
        )
    ax.set_yticks(ys, [f"{label} (n = {e.n:,})" for label, e in rows])
    if reference is not None:
        ax.axvline(reference, color="#888888", linestyle="--", linewidth=0.9)
    if percent:
        percent_axis(ax.xaxis)
    fig.suptitle(f"{title}\n(points and bars: estimate and 95% interval)", fontsize=10)
    ax.set_xlabel(xlabel)
    ax.grid(axis="y", visible=False)
    fig.tight_layout()
    return _finish(fig)


def heatmap_png(
    values: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    n: np.ndarray,
    xlabels: Sequence[str],
    ylabels: Sequence[str],
    title: str,
    xlabel: str,
    ylabel: str,
    min_n: int = 30,
    percent: bool = True,
    limits: tuple[float, float] | None = None,
) -> bytes:
    """A grid of estimates (rows ``ylabels``, columns ``xlabels``), each cell written as
    the estimate and its 95% interval's half width; cells with fewer than ``min_n`` cases
    blank. ``percent``: rates on a 0..100% scale; else values (points) on ``limits``
    (default: symmetric around zero, red below, green above).

    >>> v = np.array([[0.9, 0.5]]); png = heatmap_png(v, v - 0.1, v + 0.1, np.array([[50, 10]]),
    ...     ["0", "1"], ["a"], "t", "x", "y")
    >>> png[:4] == b"\\x89PNG"
    True
    """
    plt = require_matplotlib()
    shown = np.where(n >= min_n, values, np.nan)
    if limits is None:
        reach = float(np.nanmax(np.abs(shown))) if np.isfinite(shown).any() else 1.0
        limits = (0.0, 1.0) if percent else (-reach, reach)
    fig, ax = plt.subplots(figsize=(WIDTH, 0.42 * len(ylabels) + 1.6))
    image = ax.imshow(shown, cmap="RdYlGn", vmin=limits[0], vmax=limits[1], aspect="auto")
    for (i, j), v in np.ndenumerate(shown):
        if np.isnan(v):
            continue
        half = (high[i, j] - low[i, j]) / 2
        spread = 100 * half if percent else half
        spread_text = f"±{spread:.1f}" if spread >= 0.05 else "±<0.1"
        text = f"{100 * v:.0f}%\n{spread_text}" if percent else f"{v:+.0f}\n{spread_text}"
        ax.text(j, i, text, ha="center", va="center", fontsize=6.5, color="black")
    ax.set_xticks(range(len(xlabels)), list(xlabels))
    ax.set_yticks(range(len(ylabels)), list(ylabels))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(False)
    total = int(np.sum(n))
    blank = f"; blank: n < {min_n:,}" if min_n > 1 else ""
    ax.set_title(f"{title}\n(n = {total:,}; cell: estimate ±95% half width{blank})")
    fig.colorbar(image, ax=ax, fraction=0.03, pad=0.02, format="{x:.0%}" if percent else "{x:+.0f}")
    fig.tight_layout()
    return _finish(fig)


__all__ = [
    "COLORS",
    "EXTRA_HINT",
    "Panel",
    "ReportUnavailable",
    "Series",
    "data_uri",
    "forest_png",
    "heatmap_png",
    "panels_png",
    "require_matplotlib",
]
