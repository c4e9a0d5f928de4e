"""The kernel runner (``spades_sim.threads``): blocks shared out to threads, and the
compile notice.

- Every block runs exactly once, whatever the thread count and block count, and an
  error in a task reaches the caller.
- A compile is announced before it happens, and only then: a kernel already compiled in
  the process, or found in Numba's on-disk cache by a fresh process (a fresh dispatcher
  here), is announced to no one and recorded as no compile.
- A run's summary says whether it compiled and how long that took.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from spades_sim import threads as kernels
from spades_sim.run import run_dataset
from spades_sim.simulate import RunSpec

KERNEL_SOURCE = """
from numba import njit


@njit(cache=True, nogil=True)
def count_blocks_nb(first, end, out):
    for block in range(first, end):
        out[block] += 1
"""


def _load(path: Path, name: str) -> ModuleType:
    """Import ``path`` as a new module ``name``: a fresh Numba dispatcher, as in a new
    process, sharing the on-disk cache of every other import of that file."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def kernel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kernel") / "tiny_kernel.py"
    path.write_text(KERNEL_SOURCE)
    return path


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n_blocks", [0, 1, 3, 17, 1000])
def test_every_block_runs_once(kernel_file: Path, threads: int, n_blocks: int) -> None:
    kernel = _load(kernel_file, "tiny_kernel_run").count_blocks_nb
    out = np.zeros(n_blocks, dtype=np.int64)
    with kernels.kernel_threads(threads):
        kernels.run_blocks(kernel, n_blocks, out)
    assert (out == 1).all()


def test_an_error_in_a_task_reaches_the_caller() -> None:
    calls = []

    class Kernel:  # the runner's view of a dispatcher: compile, then calls
        def __init__(self) -> None:
            self.overloads = {(None, None): None}  # (first, end) typed None: compiled

        def typeof_pyval(self, value: object) -> object:
            return None

        def __call__(self, first: object, end: object) -> None:
            calls.append(threading.current_thread().name)
            if int(first) == 0:
                raise RuntimeError("boom")

    with kernels.kernel_threads(2), pytest.raises(RuntimeError, match="boom"):
        kernels.run_blocks(Kernel(), 64)
    assert calls  # at least the failing task ran


def test_a_compile_is_announced_before_it_happens_and_only_then(kernel_file: Path) -> None:
    said: list[tuple[str, bool]] = []
    module = _load(kernel_file, "tiny_kernel_cold")
    kernel = module.count_blocks_nb
    kernel._cache.flush()  # an empty on-disk cache for this kernel: a cold start

    def starting(name: str, expected: float, cached: bool) -> None:
        said.append((name, kernel.signatures == []))  # told before the compile

    out = np.zeros(4, dtype=np.int64)
    with kernels.watch_compiles(starting) as cold:
        kernels.run_blocks(kernel, 4, out)
    assert said == [("count_blocks_nb", True)]
    assert [c.kernel for c in cold.compiles] == ["count_blocks_nb"] and cold.seconds > 0

    with kernels.watch_compiles(starting) as again:  # compiled in this process
        kernels.run_blocks(kernel, 4, out)
    fresh = _load(kernel_file, "tiny_kernel_warm").count_blocks_nb
    with kernels.watch_compiles(starting) as warm:  # a new dispatcher: loads from disk
        kernels.run_blocks(fresh, 4, out)
    assert len(said) == 1 and again.compiles == [] and warm.compiles == []
    assert fresh.stats.cache_hits and (out == 3).all()


def test_the_notice_says_first_run_only_and_about_how_long(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert kernels.compile_notice("hands_nb", 12.4, True) == (
        "compiling kernels (first run only, about 12 s)"
    )
    with kernels.announce_compiles() as watch:
        assert watch.starting is not None
        watch.starting("hands_nb", 30, True)
    assert capsys.readouterr().err.strip() == "compiling kernels (first run only, about 30 s)"
    with kernels.announce_compiles(False) as quiet:
        assert quiet.starting is None


def test_the_run_summary_says_whether_kernels_were_compiled(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=3)
    first = run_dataset(spec, 200, tmp_path / "a")
    again = run_dataset(spec, 200, tmp_path / "b")  # the kernel is loaded now
    data = json.loads(first.to_json())
    assert data["compiled"] == first.compiled and data["compile_seconds"] == first.compile_seconds
    assert first.compiled == (first.compile_seconds > 0)
    assert not again.compiled and again.compile_seconds == 0
