"""Where a hands part's bytes and encoding CPU go, column by column, in the run's format.

Computes one default chunk of ``RunSpec.build(seed=...)`` (262,144 deals, 1,048,576
per-seat rows), takes the :class:`~spades_sim.dataset.PartFormat` that ``run_dataset``
writes with, and reports:

- the whole part: CPU time (``time.process_time``, median of ``--repeat`` rounds) of
  ``to_arrow`` plus ``pyarrow.parquet.write_table`` into memory, and bytes, per deal;
- each column: its compressed bytes in the file's metadata
  (``row_group(0).column(j).total_compressed_size``) and the CPU time of writing it alone
  in the same format, per row, largest first.

    python benchmarks/writer.py                                   # the default format
    python benchmarks/writer.py --integer-encoding BYTE_STREAM_SPLIT
    python benchmarks/writer.py --json                            # one JSON object
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from spades_sim.dataset import PartFormat
from spades_sim.dataset.format import to_arrow
from spades_sim.run import RunCall
from spades_sim.run.chunks import run_chunk
from spades_sim.run.plan import default_chunk_size
from spades_sim.run.spec import RunSpec


def run_format(spec: RunSpec, integer_encoding: str) -> PartFormat:
    """The format ``run_dataset`` would write ``spec`` with."""
    with tempfile.TemporaryDirectory() as tmp:
        call = RunCall(
            spec,
            1,
            tmp + "/run",
            chunk_size=None,
            resume=False,
            overwrite=False,
            progress=False,
            integer_encoding=integer_encoding,
        )
        return call.writer.format


def cpu_median(work: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median CPU seconds of ``repeat`` calls, and the last call's result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = work()
        times.append(time.process_time() - start)
    return statistics.median(times), result


def encode(table: pa.Table, fmt: PartFormat) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **fmt.write_options(table.schema))
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--integer-encoding", default="DELTA_BINARY_PACKED")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    spec = RunSpec.build(seed=args.seed)
    deals = default_chunk_size(spec)
    cols = run_chunk(spec, 0, 0, deals).hands
    fmt = run_format(spec, args.integer_encoding)
    rows = len(cols["deal"])

    def whole() -> bytes:
        return encode(to_arrow("hands", cols, fmt.nullable_bool, {}), fmt)

    seconds, data = cpu_median(whole, args.repeat)
    meta = pq.ParquetFile(pa.BufferReader(data)).metadata
    group = meta.row_group(0)
    table = to_arrow("hands", cols, fmt.nullable_bool, {})
    columns = []
    for j in range(meta.num_columns):
        chunk = group.column(j)
        name = chunk.path_in_schema
        alone, _ = cpu_median(functools.partial(encode, table.select([name]), fmt), args.repeat)
        columns.append(
            {
                "column": name,
                "bytes_per_deal": chunk.total_compressed_size / deals,
                "uncompressed_per_deal": chunk.total_uncompressed_size / deals,
                "ns_per_row": alone / rows * 1e9,
                "encodings": list(chunk.encodings),
            }
        )
    columns.sort(key=lambda c: -c["bytes_per_deal"])
    result = {
        "integer_encoding": args.integer_encoding,
        "deals": deals,
        "rows": rows,
        "cpu_us_per_deal": seconds / deals * 1e6,
        "bytes_per_deal": len(data) / deals,
        "columns": columns,
    }
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{args.integer_encoding}: {deals:,} deals ({rows:,} rows): "
        f"{result['cpu_us_per_deal']:.3f} us CPU and {result['bytes_per_deal']:.2f} bytes a deal"
    )
    print(f"{'column':15s} {'B/deal':>7s} {'raw B/deal':>10s} {'ns/row':>7s}  encodings")
    for c in columns:
        print(
            f"{c['column']:15s} {c['bytes_per_deal']:7.2f} {c['uncompressed_per_deal']:10.2f} "
            f"{c['ns_per_row']:7.2f}  {', '.join(c['encodings'])}"
        )


if __name__ == "__main__":
    main()
