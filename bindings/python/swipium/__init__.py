"""Python binding of libswipium's public C API (ctypes; no compiled extension).

    import swipium
    with swipium.Report.from_file("report-1732960000000.json") as report:
        print(report.render("junit"))
        if report.gate(project_root=".")["block"]:
            ...

The library is found through $SWIPIUM_LIBRARY, then a meson build directory of this checkout,
then the dynamic linker (ctypes.util.find_library). See README.md next to this package.
"""

import ctypes
import json
import os

from . import _lib
from ._errors import (
    SwipiumError,
    InvalidArgumentError,
    OutOfMemoryError,
    IOFailureError,
    NotFoundError,
    ParseError,
    DeniedError,
    UnsupportedError,
    LimitError,
    from_sw_error as _from_sw_error,
)
from ._lib import LibraryNotFound

__all__ = [
    "SwipiumError", "InvalidArgumentError", "OutOfMemoryError", "IOFailureError", "NotFoundError",
    "ParseError", "DeniedError", "UnsupportedError", "LimitError", "LibraryNotFound",
    "version", "compatible_with", "strerror", "sha256_hex", "write_file_atomic",
    "ProjectRoot", "resolve_project_root", "has_project_marker",
    "Context", "LOG_LEVELS", "parse_log_level",
    "Report", "FORMATS", "library_path", "catalog_lookup", "catalog_list", "catalog_count",
    "find_report", "flow_check",
]

_native = None


def _L():
    """The loaded library (loaded on first use so that importing never fails)."""
    global _native
    if _native is None:
        _native = _lib.load()
    return _native


def library_path():
    """The path of the libswipium that was loaded."""
    return _L().swipium_path


def _enc(s, what):
    """str/bytes/PathLike -> bytes for a const char * parameter; None stays None."""
    if s is None:
        return None
    if isinstance(s, os.PathLike):
        s = os.fspath(s)
    if isinstance(s, str):
        b = os.fsencode(s)
    elif isinstance(s, bytes):
        b = s
    else:
        raise TypeError(f"{what} must be str, bytes or a path, not {type(s).__name__}")
    if b"\0" in b:
        raise ValueError(f"{what} must not contain a NUL character")
    return b


def _dec(b):
    return None if b is None else b.decode("utf-8", "surrogateescape")


def _check(rc, err):
    """Raises the Pythonic error for a failed call; frees the C error object either way."""
    if rc < 0:
        raise _from_sw_error(_L(), rc, err.value)
    if err.value:
        # Contract says err is set only on failure; free it anyway rather than leak.
        _L().sw_error_free(err.value)


def _take_string(ptr, length=None):
    """Copies a char * the library handed out (transfer full) into bytes and sw_free()s it."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr, length) if length is not None else ctypes.string_at(ptr)
    finally:
        _L().sw_free(ptr)


# --- core: util.h, common.h ---------------------------------------------------------------------

def version():
    """libswipium's own version, e.g. "0.1.0"."""
    return _dec(_L().sw_version())


def compatible_with():
    """The reference product version whose contract the library keeps, e.g. "2.2.0"."""
    return _dec(_L().sw_compatible_with())


def strerror(code):
    """The name of a result code: strerror(-1) == "SW_EINVAL"."""
    return _dec(_L().sw_strerror(int(code)))


def sha256_hex(data):
    """Lowercase hex SHA-256 of @data (bytes, or str encoded as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    out = ctypes.create_string_buffer(65)
    _L().sw_sha256_hex(data, len(data), out)
    return out.value.decode("ascii")


def write_file_atomic(path, data, *, mkdirs=False, shared=False):
    """Writes @data to @path atomically (temp file, fsync, rename). Files are 0600 unless @shared."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    flags = (1 if mkdirs else 0) | (2 if shared else 0)
    err = ctypes.c_void_p()
    rc = _L().sw_file_write_atomic(_enc(path, "path"), data, len(data), flags, ctypes.byref(err))
    _check(rc, err)


# --- core: project.h ----------------------------------------------------------------------------

class ProjectRoot(tuple):
    """(root, source) as returned by resolve_project_root(); also readable as .root and .source."""

    def __new__(cls, root, source):
        return super().__new__(cls, (root, source))

    root = property(lambda self: self[0])
    source = property(lambda self: self[1])

    def __repr__(self):
        return f"ProjectRoot(root={self[0]!r}, source={self[1]!r})"


def resolve_project_root(project_root=None, *, mcp_roots=None, cwd=None, home=None, use_process_env=True):
    """Applies the project-root rule (explicit argument, client roots, SWIPIUM_PROJECT_ROOT,
    CLAUDE_PROJECT_DIR, working directory with a marker). Returns ProjectRoot(root, source) where
    source is "arg", "mcp-roots", "env:SWIPIUM_PROJECT_ROOT", "env:CLAUDE_PROJECT_DIR" or "cwd".
    Raises InvalidArgumentError for a bad explicit root, NotFoundError (PROJECT_ROOT_UNRESOLVED)
    when nothing applies."""
    req = _lib.RootRequest()
    req.version = _lib.ROOT_REQUEST_VERSION
    keep = []  # the encoded strings must outlive the call
    req.project_root = _enc(project_root, "project_root")
    if mcp_roots is not None:
        items = [_enc(r, "mcp_roots item") for r in mcp_roots]
        arr = (ctypes.c_char_p * (len(items) + 1))(*items, None)
        keep.append(arr)
        req.mcp_roots = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
    req.cwd = _enc(cwd, "cwd")
    req.home = _enc(home, "home")
    req.use_process_env = 1 if use_process_env else 0
    root = ctypes.c_void_p()
    source = ctypes.c_void_p()
    err = ctypes.c_void_p()
    rc = _L().sw_project_root_resolve(ctypes.byref(req), ctypes.byref(root), ctypes.byref(source), ctypes.byref(err))
    _check(rc, err)
    return ProjectRoot(_dec(_take_string(root.value)), _dec(_take_string(source.value)))


def has_project_marker(directory):
    """True when @directory holds a project marker (package.json, android/, *.xcodeproj ...)."""
    return bool(_L().sw_project_has_marker(_enc(directory, "directory")))


# --- core: context.h ----------------------------------------------------------------------------

LOG_LEVELS = ("debug", "info", "warn", "error")


def parse_log_level(name):
    """Level name (case-insensitive) -> its name in LOG_LEVELS; raises ValueError for others."""
    out = ctypes.c_int(-1)
    if _L().sw_log_level_parse(_enc(name, "name"), ctypes.byref(out)) != 0:
        raise ValueError(f"unknown log level {name!r}; use one of {', '.join(LOG_LEVELS)}")
    return LOG_LEVELS[out.value]


class Context:
    """The library context (sw_ctx): home directory and log level. Close it, or use ``with``."""

    def __init__(self):
        ptr = ctypes.c_void_p()
        err = ctypes.c_void_p()
        self._ptr = None
        self._log_cb = None
        _check(_L().sw_ctx_new(ctypes.byref(ptr), ctypes.byref(err)), err)
        self._ptr = ptr.value

    def _live(self):
        if not self._ptr:
            raise ValueError("the context is closed")
        return self._ptr

    @property
    def home(self):
        return _dec(_L().sw_ctx_get_home(self._live()))

    @home.setter
    def home(self, value):
        err = ctypes.c_void_p()
        _check(_L().sw_ctx_set_home(self._live(), _enc(value, "home"), ctypes.byref(err)), err)

    def set_log_handler(self, handler):
        """Routes the library's log records to @handler(level, message, fields) where level is a name in
        LOG_LEVELS and fields a dict; None stops logging. The handler runs on the thread that made the
        call which logs; an exception it raises is swallowed (there is no way to raise it through C)."""
        if handler is None:
            _L().sw_ctx_set_log_fn(self._live(), _lib.LOG_FN(), None)
            self._log_cb = None
            return

        def trampoline(level, msg, fields_json, _userdata):
            try:
                fields = json.loads(fields_json) if fields_json else {}
                name = LOG_LEVELS[level] if 0 <= level < len(LOG_LEVELS) else str(level)
                handler(name, _dec(msg), fields)
            except BaseException:  # nothing may unwind into C
                pass

        cb = _lib.LOG_FN(trampoline)
        _L().sw_ctx_set_log_fn(self._live(), cb, None)
        self._log_cb = cb  # the C side keeps only a pointer: keep the thunk alive with the context

    @property
    def log_level(self):
        return LOG_LEVELS[_L().sw_ctx_get_log_level(self._live())]

    @log_level.setter
    def log_level(self, name):
        _L().sw_ctx_set_log_level(self._live(), LOG_LEVELS.index(parse_log_level(name)))

    @property
    def _as_parameter_(self):
        """Lets a Context be passed where the C API takes an sw_ctx *."""
        return ctypes.c_void_p(self._live())

    def close(self):
        if self._ptr:
            _L().sw_ctx_free(self._ptr)
            self._ptr = None
        self._log_cb = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_ptr", None) and _native is not None:
            self.close()


# --- catalog.h ----------------------------------------------------------------------------------

def _need(name, what):
    if not _lib.has(_L(), name):
        raise UnsupportedError(-8, "SW_EUNSUPPORTED", "UNSUPPORTED", f"{library_path()} was built without {what}")


def catalog_lookup(code):
    """The catalog entry of a failure code ("NATIVE_CRASH" ...) as a dict with code, bucket, owner,
    severity, retrySafe, canSwipiumFix, reserved, finding, summary, recovery. InvalidArgumentError
    (INVALID_ARGUMENT) for an unknown code (exact, case-sensitive)."""
    _need("sw_catalog_lookup", "the failure-code catalog")
    out = ctypes.c_void_p()
    err = ctypes.c_void_p()
    _check(_L().sw_catalog_lookup(_enc(code, "code"), ctypes.byref(out), ctypes.byref(err)), err)
    return json.loads(_take_string(out.value))


def catalog_list():
    """Every catalog entry, in catalog order, as a list of dicts (see catalog_lookup)."""
    _need("sw_catalog_list_json", "the failure-code catalog")
    out = ctypes.c_void_p()
    err = ctypes.c_void_p()
    _check(_L().sw_catalog_list_json(ctypes.byref(out), ctypes.byref(err)), err)
    return json.loads(_take_string(out.value))


def flow_check(options):
    """Lints a Flow V2 flow without a device (qa_flow_check): @options is a dict with root, flow or
    flowYaml, platform, ci, variables, backend. Returns {valid, errors, warnings, ...}. An unknown key or a
    wrong type raises InvalidArgumentError naming it (details: unknownOptions, wrongTypes)."""
    _need("sw_flow_check", "flows")
    if not isinstance(options, dict):
        raise TypeError("options must be a dict")
    out = ctypes.c_void_p()
    err = ctypes.c_void_p()
    _check(_L().sw_flow_check(_enc(json.dumps(options), "options"), ctypes.byref(out), ctypes.byref(err)), err)
    return json.loads(_take_string(out.value))


def catalog_count():
    """The number of failure codes in the catalog."""
    _need("sw_catalog_count", "the failure-code catalog")
    return int(_L().sw_catalog_count())


# --- report.h -----------------------------------------------------------------------------------

FORMATS = ("junit", "sarif", "github-summary", "markdown", "json")


def _need_report_api():
    _need("sw_report_render", "the report module")


def _format_code(name):
    _need_report_api()
    out = ctypes.c_int(-1)
    if _L().sw_report_format_parse(_enc(name, "format"), ctypes.byref(out)) != 0:
        raise ValueError(f"unknown report format {name!r}; use one of {', '.join(FORMATS)}")
    return out.value


def find_report(root=None, *, session_id=None, home=None):
    """The path of a project's saved report under <home>/.swipium, found the way `swipium report`
    finds it: @session_id's report, or the newest session with one. @root defaults to the working
    directory, @home to $HOME. InvalidArgumentError (INVALID_ARGUMENT) carries the message `swipium report`
    prints when there is none."""
    _need("sw_report_find", "report discovery")
    out = ctypes.c_void_p()
    err = ctypes.c_void_p()
    rc = _L().sw_report_find(_enc(home, "home"), _enc(root, "root"), _enc(session_id, "session_id"),
                             ctypes.byref(out), ctypes.byref(err))
    _check(rc, err)
    return _dec(_take_string(out.value))


class Report:
    """A loaded QA report (sw_report). Build it with from_file() or from_bytes(); close() it or use ``with``."""

    def __init__(self, _ptr):
        self._ptr = _ptr

    @classmethod
    def from_file(cls, path):
        """Loads a saved report JSON file. InvalidArgumentError (INVALID_ARGUMENT) when it does not exist, is
        not JSON, or is JSON but not a report; the message says which."""
        _need_report_api()
        ptr = ctypes.c_void_p()
        err = ctypes.c_void_p()
        _check(_L().sw_report_load_file(_enc(path, "path"), ctypes.byref(ptr), ctypes.byref(err)), err)
        return cls(ptr.value)

    @classmethod
    def from_bytes(cls, data):
        """Parses report JSON given as bytes (or str, encoded as UTF-8)."""
        _need_report_api()
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        data = bytes(data)
        ptr = ctypes.c_void_p()
        err = ctypes.c_void_p()
        _check(_L().sw_report_load_data(data, len(data), ctypes.byref(ptr), ctypes.byref(err)), err)
        return cls(ptr.value)

    def _live(self):
        if not self._ptr:
            raise ValueError("the report is closed")
        return self._ptr

    @property
    def session_id(self):
        """The report's sessionId, or None."""
        return _dec(_L().sw_report_session_id(self._live()))

    def gate(self, project_root=None):
        """Evaluates the release gate against <project_root>/.swipium/policy.json (None: no policy).
        Returns {"block", "blocked", "warned", "suppressed", "reason"}."""
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        rc = _L().sw_report_gate(self._live(), _enc(project_root, "project_root"), ctypes.byref(out), ctypes.byref(err))
        _check(rc, err)
        return json.loads(_take_string(out.value))

    def render_bytes(self, fmt, project_root=None):
        """Renders in @fmt (one of FORMATS); returns (body bytes, gate dict). The body has no final
        newline (the CLI adds one)."""
        code = _format_code(fmt)
        opts = _lib.RenderOptions(_lib.RENDER_OPTIONS_VERSION, _enc(project_root, "project_root"))
        out = ctypes.c_void_p()
        length = ctypes.c_size_t(0)
        gate = ctypes.c_void_p()
        err = ctypes.c_void_p()
        rc = _L().sw_report_render(self._live(), code, ctypes.byref(opts), ctypes.byref(out), ctypes.byref(length),
                                   ctypes.byref(gate), ctypes.byref(err))
        _check(rc, err)
        try:
            body = _take_string(out.value, length.value)
        finally:
            gate_text = _take_string(gate.value)
        return body, (json.loads(gate_text) if gate_text is not None else None)

    def render(self, fmt, project_root=None):
        """Renders in @fmt and returns the body as str."""
        body, _ = self.render_bytes(fmt, project_root)
        return body.decode("utf-8")

    def close(self):
        if self._ptr:
            _L().sw_report_free(self._ptr)
            self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_ptr", None) and _native is not None:
            self.close()
