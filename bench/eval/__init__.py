"""Quality harness (`make eval`): how much of what matters in real sessions reaches the
model, and (sections added later) how well candidates are checked. Printed, not timed."""
