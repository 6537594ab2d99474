"""Secret redaction, applied to everything catcode writes that may outlive the session: memory files, history,
session summaries.

- ``rules.py``: the rule table — credentials known by their shape (keys, JWTs, webhooks, stated passwords).
- ``vendor_prefixes.py``: vendor tokens known by their prefix (``npm_``, ``hf_``, ``SG.``…), sharing three scans.
- ``assignments.py``: secrets under a secret-named key (``key = value``, ``--key value``, JSON fields).
- ``values.py``: what a secret's value looks like, as opposed to code, a path or a placeholder.
- ``generic.py``: the generic rule — long, high-entropy tokens of formats no rule names.
- ``redactor.py``: ``Redactor``, which applies the table (``redact`` for text, ``redact_json`` for JSON values).

Import ``redact`` and friends from here: ``from catcode.redact import redact``."""

from catcode.redact.redactor import MARKER_PREFIX, Redactor, redact, redact_json

__all__ = ["MARKER_PREFIX", "Redactor", "redact", "redact_json"]
