"""The MCP rows: `mem-review mcp` as Claude Code keeps it, at 10,000 approved facts.

- mcp-recall: one `tools/call recall` round trip through a running server (JSON-RPC over
  its pipes, a fresh store connection, FTS5 + BM25, staleness of the candidates, ranking,
  neutralising) against the bare FTS5 query of the same words on the same store, timed
  in the same run: what recall adds over the search it is built on.
- mcp-start: process start to the `initialize` answer, against an interpreter importing
  the SDK and nothing else (`import mcp.server.mcpserver`): the floor any server on this
  SDK pays; what we add on top is ours.
- mcp-memory: the server's peak RSS (VmHWM) after initialize and recalls at 10,000 facts,
  against the same bare SDK import.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from typing import Any

from bench.common import INFO, Result, Stat, interleave, missing, ms
from bench.rows import Ctx, has_module

QUERIES = (
    "how does the invoice handler retry",
    "webhook timeout port",
    "ledger migration backfill tenants",
    "caching thumbnail results",
)
SDK = "import mcp.server.mcpserver"


class _Server:
    def __init__(self, exe: str, cwd: str, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([exe, "mcp"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method,
                                          "params": params}).encode() + b"\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its stdout")
        return json.loads(line)

    def initialize(self) -> dict[str, Any]:
        out = self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "bench", "version": "1"}})
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        self.proc.stdin.flush()
        return out

    def rss_peak_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _sdk_floor() -> tuple[float, float]:
    """(seconds to import the SDK in a new interpreter, its peak RSS in MB)."""
    code = (f"{SDK}\nimport sys\nfor l in open('/proc/self/status'):\n"
            "    l.startswith('VmHWM:') and sys.stdout.write(l.split()[1])")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    return time.perf_counter() - t0, int(out.stdout or 0) / 1024


def run(ctx: Ctx) -> list[Result]:
    n = ctx.fx.scale
    titles = {
        "mcp-recall": (f"`recall` over MCP, {n.facts:,} approved facts", "≤ 5×"),
        "mcp-start": ("`mem-review mcp` start to `initialize` answered", "≤ 1.5×"),
        "mcp-memory": (f"`mem-review mcp` memory (peak RSS), {n.facts:,} facts", "≤ +25 MB"),
    }
    if ctx.exe is None:
        return [missing(k, t, b, "no mem-review console script") for k, (t, b) in titles.items()]
    if not (has_module("reviewer.claude_code.mcp_server") and has_module("mcp")):
        return [missing(k, t, b, "reviewer/claude_code/mcp_server.py or the mcp SDK")
                for k, (t, b) in titles.items()]
    env = {**os.environ, "MEM_REVIEW_HOME": str(ctx.fx.home_approved),
           "MEM_REVIEW_NO_SPAWN": "1"}
    env.pop("CLAUDE_PROJECT_DIR", None)
    cwd = ctx.fx.project
    out: list[Result] = []

    # ---- recall round trip vs the bare FTS5 query ----
    server = _Server(str(ctx.exe), cwd, env)
    answers: list[dict[str, Any]] = []
    try:
        server.initialize()
        db_path = ctx.fx.home_approved / "store.db"
        bare = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        turn = {"i": 0}

        from reviewer.claude_code.recall import parse

        def words(q: str) -> str:
            return parse(q).match  # the very expression recall sends to FTS5

        def a() -> float:
            q = QUERIES[turn["i"] % len(QUERIES)]
            turn["i"] += 1
            t0 = time.perf_counter()
            reply = server.ask("tools/call", {"name": "recall", "arguments": {"query": q}})
            dt = time.perf_counter() - t0
            answers.append(reply)
            return dt

        def b() -> float:
            q = QUERIES[turn["i"] % len(QUERIES)]
            t0 = time.perf_counter()
            bare.execute(
                "SELECT f.id, f.text FROM fact_fts JOIN fact f ON f.id = fact_fts.rowid "
                "WHERE fact_fts MATCH ? AND f.project = ? AND f.status = 'approved' "
                "ORDER BY bm25(fact_fts) LIMIT 8", (words(q), cwd)).fetchall()
            return time.perf_counter() - t0

        samples = interleave([a, b], ctx.cheap_reps)
        bare.close()
        peak = server.rss_peak_mb()
    finally:
        server.close()
    title, budget = titles["mcp-recall"]
    res = Result("mcp-recall", title, "", value=ms(samples[0]), baseline=ms(samples[1]),
                 baseline_title="bare FTS5 BM25 query, same words, same store", limit=5.0,
                 budget=budget)
    last = answers[-1].get("result", {}) if answers else {}
    if not last or last.get("isError"):
        res.status = "ERROR"
        res.notes.append(f"recall answered {str(last)[:160]}")
    else:
        body = json.loads(last["content"][0]["text"])
        res.notes.append(f"last answer: {len(body['results'])} results, withheld "
                         f"{body['withheld']}; queries of 3-4 words, {len(QUERIES)} rotating")
    out.append(res.judge())

    # ---- start to initialize vs importing the SDK ----
    floor: list[tuple[float, float]] = []

    def start() -> float:
        t0 = time.perf_counter()
        s = _Server(str(ctx.exe), cwd, env)
        try:
            reply = s.initialize()
            dt = time.perf_counter() - t0
            if reply.get("result", {}).get("serverInfo", {}).get("name") != "mem-review":
                raise RuntimeError(f"unexpected initialize answer: {str(reply)[:120]}")
        finally:
            s.close()
        return dt

    def sdk() -> float:
        floor.append(_sdk_floor())
        return floor[-1][0]

    st = interleave([start, sdk], ctx.reps)
    title, budget = titles["mcp-start"]
    res = Result("mcp-start", title, "", value=ms(st[0]), baseline=ms(st[1]),
                 baseline_title=f"python -c '{SDK}'", limit=1.5, budget=budget)
    pass_ms = ms(interleave([_pass], ctx.reps)[0]).median
    res.notes.append(f"python -c pass in this run: {pass_ms:.0f} ms")
    out.append(res.judge())

    # ---- memory ----
    title, budget = titles["mcp-memory"]
    base_rss = [f[1] for f in floor if f[1] > 0]
    res = Result("mcp-memory", title, "", kind="delta", value=Stat([peak], "MB"),
                 baseline=Stat(base_rss or [0.0], "MB"), baseline_title=f"python -c '{SDK}'",
                 limit=25.0, budget=budget)
    if not base_rss:
        res.status = INFO
        res.notes.append("no VmHWM for the baseline (not Linux?)")
    out.append(res.judge())
    return out


def _pass() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, timeout=60)
    return time.perf_counter() - t0
