"""Errors a user can cause. The CLI turns them into `error: …` and exit code 2; the app into a notice."""


class InputError(ValueError):
    """Bad input: a value out of range, an unknown name, a malformed number."""


class BudgetError(InputError):
    """Work refused before it starts because it would exceed the memory or time budget."""


class BackendError(InputError):
    """The requested backend is not available on this machine."""
