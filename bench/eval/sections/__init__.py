"""Eval sections: each module exposes `run() -> list[bench.eval.common.Row]`."""
