"""One module per `mem-review` command: `configure(parser)` and `run(args) -> int`.

Heavy imports happen inside `run`, so `mem-review --help` and the hooks stay fast.
"""
