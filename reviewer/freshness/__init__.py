"""What checks a fact against the code.

Git anchors, the index reader, staleness verdicts, the verdict memo, diffs.
"""
