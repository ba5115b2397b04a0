"""The two ways a sweep stops: the command line asks for something impossible (exit status 2,
before anything runs), or the sweep itself cannot finish (exit status 1)."""


class UsageError(Exception):
    """A wrong option, sample spec or variable name."""


class SweepError(Exception):
    """The sweep ran but its results cannot be trusted or written."""
