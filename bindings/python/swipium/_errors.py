"""Python exceptions for libswipium's sw_error: one base class, one subclass per result code."""

import json

# sw_result values (swipium/common.h). The list only grows; values never change.
OK = 0
EINVAL = -1
ENOMEM = -2
EIO = -3
ENOTFOUND = -4
EPARSE = -5
EEXISTS = -6
EDENIED = -7
EUNSUPPORTED = -8
ECANCELLED = -9
ETIMEOUT = -10
EDEVICE = -11
ESECRET = -12
ESTATE = -13
ELIMIT = -14


class SwipiumError(Exception):
    """A libswipium call failed.

    Attributes mirror the C error object: ``code`` (negative sw_result), ``code_name`` ("SW_EINVAL"),
    ``failure_code`` (the product failure code, e.g. "INVALID_ARGUMENT"), ``message``, ``hint`` (or None)
    and ``details`` (a dict parsed from sw_error_details_json, or None).
    """

    def __init__(self, code, code_name, failure_code, message, hint=None, details=None):
        self.code = code
        self.code_name = code_name
        self.failure_code = failure_code
        self.message = message
        self.hint = hint
        self.details = details
        super().__init__(message)

    def __str__(self):
        text = f"{self.message} [{self.failure_code}]"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def __repr__(self):
        return (f"{type(self).__name__}(code={self.code_name}, failure_code={self.failure_code!r}, "
                f"message={self.message!r}, hint={self.hint!r})")


class InvalidArgumentError(SwipiumError, ValueError):
    """SW_EINVAL: an argument was missing or malformed (also: JSON that is not a report)."""


class OutOfMemoryError(SwipiumError):
    """SW_ENOMEM."""


class IOFailureError(SwipiumError):
    """SW_EIO: a file or process operation failed."""


class NotFoundError(SwipiumError, LookupError):
    """SW_ENOTFOUND: the named thing does not exist."""


class ParseError(SwipiumError, ValueError):
    """SW_EPARSE: input could not be parsed."""


class DeniedError(SwipiumError):
    """SW_EDENIED: refused by consent, policy or a safety rule."""


class UnsupportedError(SwipiumError, NotImplementedError):
    """SW_EUNSUPPORTED."""


class LimitError(SwipiumError):
    """SW_ELIMIT: a size or count limit was exceeded."""


_BY_CODE = {
    EINVAL: InvalidArgumentError,
    ENOMEM: OutOfMemoryError,
    EIO: IOFailureError,
    ENOTFOUND: NotFoundError,
    EPARSE: ParseError,
    EDENIED: DeniedError,
    EUNSUPPORTED: UnsupportedError,
    ELIMIT: LimitError,
}


def _text(b):
    return None if b is None else b.decode("utf-8", "replace")


def from_sw_error(lib, code, err_ptr):
    """Builds the exception for a failed call and frees the C error object. @err_ptr may be NULL."""
    try:
        if err_ptr:
            code = lib.sw_error_code(err_ptr) or code
            failure = _text(lib.sw_error_failure_code(err_ptr))
            message = _text(lib.sw_error_message(err_ptr))
            hint = _text(lib.sw_error_hint(err_ptr))
            details_text = _text(lib.sw_error_details_json(err_ptr))
        else:
            failure, message, hint, details_text = "UNKNOWN", None, None, None
    finally:
        if err_ptr:
            lib.sw_error_free(err_ptr)
    name = _text(lib.sw_strerror(code))
    if not message:
        message = f"libswipium call failed with {name}"
    details = None
    if details_text:
        try:
            details = json.loads(details_text)
        except ValueError:
            details = {"raw": details_text}
    cls = _BY_CODE.get(code, SwipiumError)
    return cls(code, name, failure, message, hint, details)
