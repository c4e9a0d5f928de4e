"""The hand analyser page (``spades-sim serve``; the ``web`` extra): the bid table, nil
odds and the double-dummy solver in a browser, on the loopback address by default.

Contract
--------
:func:`create_app` (``app.py``) is the Starlette application; :func:`serve` warms the
kernels (with a progress line, so no request waits on a compile) and runs it under
uvicorn until interrupted. Modules: ``query`` (what an analysis is asked, checked, and
its permalink), ``jobs`` (analyses on one worker thread, progress by step, cancel),
``analyse`` (the steps of an analysis), ``deals`` (the deal viewer's data, and the rule
that no file outside ``--runs`` is read), ``app`` (routes, templates, size caps, error
pages), ``server`` (warm-up, port, uvicorn), ``templates/`` and ``static/`` (the page;
nothing fetched from elsewhere).
"""

from __future__ import annotations

from spades_sim.web.app import create_app
from spades_sim.web.server import serve, warm_up

__all__ = ["create_app", "serve", "warm_up"]
