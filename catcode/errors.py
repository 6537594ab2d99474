"""The exception tree. Every error a person may see derives from ``CatcodeError`` and reads as one line
saying what happened and what to do."""


class CatcodeError(Exception):
    """Base of every catcode error; ``str(err)`` is the one line shown to the person."""


class ConfigError(CatcodeError):
    """A settings file or value is invalid; the message names the file and the key."""


class MissingApiKeyError(CatcodeError):
    """Nothing to talk to: no ``ANTHROPIC_API_KEY`` and no ``ANTHROPIC_BASE_URL`` for the Claude API, or the
    libraries a cloud provider needs are not installed (exit 2, before any prompt)."""


class ProviderError(CatcodeError):
    """The model provider failed after its retries (HTTP error, overload, dropped stream)."""

    def __init__(self, message: str, *, status: int | None = None, retries: int = 0) -> None:
        super().__init__(message)
        self.status = status
        self.retries = retries


class ToolError(CatcodeError):
    """A tool refused its input (outside the project, ambiguous edit, binary file...)."""


class MemoryStoreError(CatcodeError):
    """A memory could not be written: invalid name, name clash across scopes, lock timeout."""


class InvalidMemoryName(MemoryStoreError):
    """A memory name is not a kebab-case slug; the message says why."""


def one_line(exc: BaseException) -> str:
    """What to show a person about ``exc``: the first line of its message, else its type's name."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
