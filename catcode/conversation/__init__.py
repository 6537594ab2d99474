"""conversation."""
