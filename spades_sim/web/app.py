"""The Starlette application of ``spades-sim serve``: the analyser, the deal viewer, their
JSON endpoints, and the safety rules every request passes.

Contract
--------
:func:`create_app` builds the app: ``/`` (the analyser: a 52-card picker and the table
state; a query such as ``/?hand=AKQ.J52.T84.9632&seat=S&dealer=W&bids=N4,E3`` opens an
analysis and runs it), ``/deal`` (the deal viewer: ``?run=PATH&deal=K`` under
``runs``, or a deal typed in), ``POST /api/analyse`` and ``POST /api/deal`` (start a job
for the tab, answer its id, or 400 with ``{"error": one line}``), ``GET /api/job/ID``
(its progress; when done the results as HTML, and the viewer's replay as data),
``POST /api/job/ID/cancel``, and ``/static`` (the page's script and styles, inside the
package: nothing is fetched from elsewhere). Bad input is a 4xx with one line; a request
body over :data:`MAX_BODY` bytes is 413; a query over ``MAX_QUERY`` characters is 414; a
request that raises anything else answers a short error page (500), never a traceback.
Files are read only under ``runs`` (:func:`spades_sim.web.deals.run_path`). Analyses
and replays run in one worker process (:func:`worker_pool`), so the server answers its
requests (progress, cancel, other tabs) while the solver works; when the app shuts down,
:func:`stop_pool` ends that process, in the middle of an analysis if need be.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import re
import signal
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from tqdm import tqdm

from spades_sim.cards import SEAT_NAMES
from spades_sim.web.analyse import DD_COMPLETIONS, TRICK_COMPLETIONS, analysis_steps
from spades_sim.web.deals import replay, run_deal, run_path, typed_deal
from spades_sim.web.jobs import Jobs, Step
from spades_sim.web.query import DEFAULT_N, MAX_N, MAX_QUERY, PRESETS, parse_analysis

__all__ = ["MAX_BODY", "WorkerPool", "create_app", "stop_pool", "worker_pool"]

MAX_BODY = 16_384
"""The largest request body accepted, in bytes."""
TAB = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
LOG = logging.getLogger("spades_sim.web")


def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("spades_sim.web", "templates"), autoescape=select_autoescape()
    )
    # + 0.0 turns a negative zero (the best bid's gain to itself) into 0
    env.filters["pct"] = lambda x, d=1: "" if x is None else f"{100 * x + 0.0:.{d}f}%"
    return env


class Limits(BaseHTTPMiddleware):
    """Request size caps (module docstring) and the error page for anything unexpected."""

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if len(request.url.query) > MAX_QUERY:
            return _error(request, 414, f"the address is longer than {MAX_QUERY} characters")
        length = request.headers.get("content-length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            return _error(request, 413, f"the request is larger than {MAX_BODY:,} bytes")
        try:
            return await call_next(request)
        except Exception:
            LOG.exception("request %s failed", request.url.path)
            return _error(request, 500, "the server could not answer this request (see its log)")


def _error(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    page = (
        "<!doctype html><title>spades-sim</title>"
        f"<p class=error>{_escape(message)}</p><p><a href='/'>back to the analyser</a>"
    )
    return HTMLResponse(page, status_code=status)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def _form(request: Request) -> tuple[dict[str, str], str]:
    """A POSTed JSON object of strings, and the tab id it names (checked)."""
    body = await request.body()
    if len(body) > MAX_BODY:
        raise _Refused(413, f"the request is larger than {MAX_BODY:,} bytes")
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise _Refused(400, "the request is not JSON") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise _Refused(400, "the request must be a JSON object of strings")
    tab = data.pop("tab", "")
    if not TAB.match(tab):
        raise _Refused(400, "tab: the page's tab id is missing or malformed")
    return data, tab


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _worker_start() -> None:
    """In the worker, first: progress bars (the solver's and nil_odds's, hidden here) lock
    their output with a thread lock, not tqdm's default multiprocessing one, a semaphore
    that a worker stopped in the middle of an analysis would leave to multiprocessing's
    tracker to warn of."""
    tqdm.set_lock(threading.RLock())


class WorkerPool(ProcessPoolExecutor):
    """The one worker process analyses run in (started fresh, not forked: Numba's and the
    thread pool's state stay out of it), started at once so its process id is known and
    :func:`stop_pool` can end it in the middle of an analysis."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        super().__init__(max_workers=1, mp_context=context, initializer=_worker_start)
        self.pending: set[Future[Any]] = set()
        try:
            self.pid = int(super().submit(os.getpid).result())
        except BaseException:  # interrupted while the worker starts: it ends once started
            self.shutdown(wait=True)
            raise

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        self.pending.add(future)
        future.add_done_callback(self.pending.discard)
        return future


def worker_pool() -> WorkerPool:
    """The worker process analyses run in (:class:`WorkerPool`)."""
    return WorkerPool()


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now, waiting until it has wound down (so its semaphores are released
    before the process exits): queued analyses cancelled and, for a busy
    :class:`WorkerPool`, its worker ended in the middle of its analysis (a compile can take
    minutes; Numba's cache keeps what finished)."""
    if isinstance(pool, WorkerPool) and pool.pending:
        # ended before the shutdown, so the pool finds it gone and sends it nothing more
        with contextlib.suppress(ProcessLookupError):
            os.kill(pool.pid, signal.SIGTERM)
    pool.shutdown(wait=True, cancel_futures=True)


def create_app(
    runs: str | Path | None = None,
    threads: int | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> Starlette:
    """The app (module docstring); ``runs`` the only directory requests may read from;
    ``pool`` the worker process (default :func:`worker_pool`), ``app.state.pool``."""
    env = _env()
    jobs = Jobs()
    pool = worker_pool() if pool is None else pool

    def compute(fn: Callable[..., Any], *args: Any) -> Any:
        # in the worker process: a kernel that holds the GIL (the solver's do) would
        # otherwise stall every request of this one until it returns
        return pool.submit(fn, *args).result()

    runs_dir = None if runs is None else Path(runs).resolve()
    common = {"presets": PRESETS, "seats": SEAT_NAMES, "default_n": DEFAULT_N, "max_n": MAX_N}

    def page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(**common, **values), status_code=status)

    async def index(request: Request) -> Response:
        query = dict(request.query_params)
        error = ""
        analysis = None
        if query:
            try:
                analysis = parse_analysis(query)
            except ValueError as exc:
                error = str(exc)
        return page(
            "index.html",
            400 if error else 200,
            query=query,
            error=error,
            autostart=analysis is not None,
            dd_completions=DD_COMPLETIONS,
        )

    def start(request_steps: Callable[[dict[str, str]], tuple[list[Step], dict[str, Any]]]):
        async def endpoint(request: Request) -> Response:
            try:
                form, tab = await _form(request)
                steps, extra = request_steps(form)
            except _Refused as refused:
                return JSONResponse({"error": refused.message}, status_code=refused.status)
            except ValueError as exc:
                return JSONResponse({"error": str(exc).splitlines()[0]}, status_code=400)
            job = jobs.submit(tab, steps)
            return JSONResponse({"job": job.id, **extra})

        return endpoint

    def analyse_steps(form: dict[str, str]) -> tuple[list[Step], dict[str, Any]]:
        analysis = parse_analysis(form)
        return analysis_steps(analysis, compute, threads), {"permalink": analysis.permalink()}

    def deal_steps(form: dict[str, str]) -> tuple[list[Step], dict[str, Any]]:
        if form.get("run"):
            path = run_path(runs_dir, form["run"])
            text = form.get("deal", "0").strip()
            if not text.isdigit() or len(text) > 12:
                raise ValueError(f"deal: expected a deal number, got {text!r}")
            deal = run_deal(path, int(text), form["run"])
        else:
            deal = typed_deal(form)
        return [Step("deal", "double-dummy replay", partial(compute, replay, deal))], {}

    async def job_status(request: Request) -> Response:
        job = jobs.get(request.path_params["id"])
        if job is None:
            return JSONResponse({"error": "no such analysis (finished long ago?)"}, status_code=404)
        status = job.status()
        results = dict(job.results)  # the steps finished so far: shown while the rest run
        if "deal" in results:
            status["deal"] = results["deal"]
        elif results and job.state != "cancelled":
            status["html"] = env.get_template("results.html").render(
                r=results, trick_completions=TRICK_COMPLETIONS
            )
        return JSONResponse(status)

    async def job_cancel(request: Request) -> Response:
        job = jobs.cancel(request.path_params["id"])
        if job is None:
            return JSONResponse({"error": "no such analysis"}, status_code=404)
        return JSONResponse(job.status())

    async def deal_page(request: Request) -> Response:
        query: Mapping[str, str] = dict(request.query_params)
        return page("deal.html", query=query, runs=runs_dir is not None)

    routes = [
        Route("/", index),
        Route("/deal", deal_page),
        Route("/api/analyse", start(analyse_steps), methods=["POST"]),
        Route("/api/deal", start(deal_steps), methods=["POST"]),
        Route("/api/job/{id}", job_status),
        Route("/api/job/{id}/cancel", job_cancel, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("spades_sim.web", "static")]), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        # the analysis running is cancelled, then its worker stopped, rather than waited
        # for (a large one takes a minute)
        jobs.cancel_all()
        stop_pool(pool)
        jobs.shutdown()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(Limits)
    app.state.jobs = jobs
    app.state.pool = pool
    return app
