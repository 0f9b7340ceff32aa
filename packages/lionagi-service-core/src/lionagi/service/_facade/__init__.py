"""Private layer package."""
