"""Secret redaction, applied to everything catcode writes that may outlive the session: memory files, history,
session summaries.

- ``rules.py``: the rule table — what counts as a secret, and what merely looks like one.
- ``generic.py``: the generic rule — long, high-entropy tokens of formats no rule names.
- ``redactor.py``: ``Redactor``, which applies the table (``redact`` for text, ``redact_json`` for JSON values).

Import ``redact`` and friends from here: ``from catcode.redact import redact``."""

from catcode.redact.redactor import MARKER_PREFIX, Redactor, redact, redact_json

__all__ = ["MARKER_PREFIX", "Redactor", "redact", "redact_json"]
