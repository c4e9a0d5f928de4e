"""How long a command takes to stop after Ctrl-C: SIGINT (or SIGTERM) to a child process,
the time to its exit, its exit status and the last lines it printed.

The command runs as a child process (its own process group, so the signal reaches it
alone). The signal goes ``--after`` seconds after the start, or after ``--when-exists
PATH`` first exists (a run's part, a manifest, a ``_dd`` directory: the work to stop is
then under way), or after ``--when-text TEXT`` first appears in a file ``--when-file``
(a manifest that records the double-dummy stage as begun, say). Prints the seconds from
the signal to the child's exit, its status (130 for SIGINT, 143 for SIGTERM), the CPU
seconds the child had used when the signal went, and its stderr's last lines::

    python benchmarks/ctrl_c.py --after 2 -- spades-sim solve runs/big
    python benchmarks/ctrl_c.py --when-file runs/x/_manifest.json --when-text '"dd"' \\
        --after 2 -- spades-sim simulate --hands 300 --seed 1 --dd --out runs/x --quiet
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` (every thread), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ready(args: argparse.Namespace) -> bool:
    """Whether the condition before the delay holds."""
    if args.when_exists is not None and not Path(args.when_exists).exists():
        return False
    if args.when_file is not None:
        try:
            return args.when_text in Path(args.when_file).read_text()
        except OSError:
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--after", type=float, default=2.0, help="seconds before the signal")
    parser.add_argument("--when-exists", default=None, help="wait for this path first")
    parser.add_argument("--when-file", default=None, help="wait for --when-text in this file")
    parser.add_argument("--when-text", default="", help="the text --when-file must hold")
    parser.add_argument("--signal", choices=["INT", "TERM"], default="INT")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up after this")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to stop after --")
    signum = signal.SIGINT if args.signal == "INT" else signal.SIGTERM
    started = time.perf_counter()
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = started + args.timeout
    while not ready(args) and child.poll() is None and time.perf_counter() < deadline:
        time.sleep(0.02)
    waited_for = time.perf_counter()
    while child.poll() is None and time.perf_counter() < waited_for + args.after:
        time.sleep(0.01)
    if child.poll() is not None:
        out, err = child.communicate()
        sys.exit(f"the command ended before the signal (status {child.returncode}): {err[-500:]}")
    used = cpu_seconds(child.pid)
    sent = time.perf_counter()
    child.send_signal(signum)
    try:
        out, err = child.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
    stopped = time.perf_counter() - sent
    result = {
        "command": " ".join(command),
        "signal_at_s": round(sent - started, 2),
        "child_cpu_s_at_signal": round(used, 2),
        "exit_after_signal_s": round(stopped, 2),
        "status": child.returncode,
        "traceback": "Traceback" in err,
        "stderr_tail": err.strip().splitlines()[-3:],
        "stdout_tail": out.strip().splitlines()[-3:],
    }
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:22s}  {value}")


if __name__ == "__main__":
    main()
