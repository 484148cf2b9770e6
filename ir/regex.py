"""Regular expressions from graphs (`regex_full_match`'s pattern): RE2, as TF's kernels use.
RE2 matches in time linear in the input, so a pattern a loaded graph supplies cannot make a
match backtrack for ever, and it rejects what it cannot match that way (backreferences,
lookaround) with TF's message."""
from __future__ import annotations

import functools

from .errors import InvalidArgumentError


@functools.lru_cache(maxsize=256)
def compile_regex(pattern: str):
    """The compiled pattern (UTF-8, as TF's RE2); InvalidArgumentError when RE2 rejects it."""
    import re2
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern.encode(), options)
    except re2.error as e:  # its message is bytes
        reason = e.args[0].decode("utf-8", "replace") if e.args and \
            isinstance(e.args[0], bytes) else str(e)
        raise InvalidArgumentError(None, "regex_full_match",
                                   f"Invalid pattern: {pattern}, error: {reason}") from None
