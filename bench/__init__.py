"""mem-review's benchmarks: costs as ratios against a baseline timed in the same run.

Run `python bench/run.py` (or `make bench`). See bench/README.md.
"""
