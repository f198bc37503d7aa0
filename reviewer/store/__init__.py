"""The store: one SQLite file, its schema and migrations, the queue, and what is done to facts."""
