"""Source -> converted AST -> code object, cached per code object.

`convert(f)` returns the converted version of a Python function (or None when `f` is not
something AutoGraph converts), `for_tracing(f)` is what `Function` calls while tracing, and
`to_code(f)` the converted source as text.

The converted function is compiled from the AST with the user's file name and the user's line
numbers (generated statements carry the line of the statement they implement), and its
generated helpers are renamed after the user function, so tracebacks, `errors.user_frame()`
and the "in user code:" block all point at user lines. `ConvertedEntity.line_map` maps the
lines of the converted source text (`to_code`) back to the user's lines.

To share the user function's closure cells (so `nonlocal` writes and later rebinding of
enclosing variables stay visible), the converted function is compiled inside a factory whose
parameters are the original free variables plus `ag__`, and then rebuilt with
`types.FunctionType` over the original cells.
"""
from __future__ import annotations

import ast
import functools
import inspect
import re
import sys
import types
import warnings
import weakref

from .astutil import AG, Namer
from .errors import AutoGraphWarning, ConversionError, is_user_file, rewrite
from . import trace_state
from .transforms import ExpressionConverter, FunctionConverter

_CODE_CACHE: dict = {}          # original code object -> ConvertedEntity or ConversionError
_FUNC_CACHE = weakref.WeakKeyDictionary()   # original function -> converted function
CONVERTED_CODES: set = set()    # every code object produced by conversion

_SKIP_MODULES = {"flowjit", "numpy", "ml_dtypes", "jax", "jaxlib", "scipy", "pytest", "_pytest",
                 "hypothesis", "pluggy", "xdsl", "typing_extensions", "six", "absl"} | \
    set(sys.stdlib_module_names)

_LAMBDA = "<lambda>"


class ConvertedEntity:
    """The conversion of one code object: the converted code, its source and line map."""

    def __init__(self, code, source: str, line_map: dict, filename: str, name: str,
                 first_line: int):
        self.code = code
        self.source = source
        self.line_map = line_map
        self.filename = filename
        self.name = name
        self.first_line = first_line

    def instantiate(self, f):
        operators = RUNTIME[0]
        cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
        closure = []
        for n in self.code.co_freevars:
            if n == AG:
                closure.append(types.CellType(operators))
            else:
                closure.append(cells[n])
        new = types.FunctionType(self.code, f.__globals__, f.__name__, f.__defaults__,
                                 tuple(closure) or None)
        new.__kwdefaults__ = f.__kwdefaults__
        new.__qualname__ = f.__qualname__
        new.__module__ = f.__module__
        new.__doc__ = f.__doc__
        new.__dict__.update(getattr(f, "__dict__", {}))
        new.__ag_converted__ = True
        new.__wrapped_original__ = f
        return new

    def annotated_source(self) -> str:
        """The converted source with each line's original line number in a left column."""
        out = [f"# AutoGraph conversion of {self.name} ({self.filename}:{self.first_line})",
               "# user line | converted code"]
        last = None
        for i, line in enumerate(self.source.splitlines(), 1):
            orig = self.line_map.get(i)
            tag = f"{orig:>9}" if orig is not None and orig != last else " " * 9
            last = orig if orig is not None else last
            out.append(f"{tag} | {line}")
        return "\n".join(out)


# The module converted code calls as `ag__` (operators.py, which sets it when imported; the
# package's __init__ imports it).
RUNTIME: list = [None]


# --- deciding what to convert ---------------------------------------------------------------
# Callables that trace themselves (tf.function's Function, registered by function.py):
# AutoGraph calls them as they are, and converts their `python_function`.
TRACING_TYPES: tuple = ()


def register_tracing_type(cls):
    global TRACING_TYPES
    TRACING_TYPES += (cls,)


def _unwrap_callable(f):
    """(plain function, how to rebuild the callable from its conversion) or (None, None)."""
    if isinstance(f, TRACING_TYPES):
        return _unwrap_callable(f.python_function)
    if isinstance(f, functools.partial):
        inner, rebuild = _unwrap_callable(f.func)
        if inner is None:
            return None, None
        return inner, lambda c: functools.partial(rebuild(c), *f.args, **(f.keywords or {}))
    if isinstance(f, types.MethodType):
        inner, rebuild = _unwrap_callable(f.__func__)
        if inner is None:
            return None, None
        return inner, lambda c: types.MethodType(rebuild(c), f.__self__)
    if isinstance(f, types.FunctionType):
        return f, lambda c: c
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType) and not isinstance(f, type):
        # A callable object of a user class: its __call__, bound to it.
        return call, lambda c: types.MethodType(c, f)
    return None, None


def is_convertible(f) -> bool:
    """Python functions from user code; not flowjit/numpy/stdlib, not marked do_not_convert,
    not already converted, not generators."""
    if getattr(f, "__ag_do_not_convert__", False) or getattr(f, "__ag_converted__", False):
        return False
    code = getattr(f, "__code__", None)
    if code is None or code in CONVERTED_CODES:
        return False
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                        inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE):
        return False
    if not is_user_file(code.co_filename):
        return False
    mod = (getattr(f, "__module__", None) or "").split(".")[0]
    return mod not in _SKIP_MODULES or mod == "flowjit" and is_user_file(code.co_filename)


def is_user_code(f) -> bool:
    code = getattr(f, "__code__", None)
    return code is not None and code not in CONVERTED_CODES and is_user_file(code.co_filename)


def convert(f, warn=True):
    """The converted callable for `f`, or None when `f` is not converted (see
    `is_convertible`) or its conversion failed (then a warning says why, once)."""
    if getattr(f, "__ag_do_not_convert__", False):
        return None
    plain, rebuild = _unwrap_callable(f)
    if plain is None or not is_convertible(plain):
        return None
    hit = _FUNC_CACHE.get(plain)
    if hit is None:
        entity = entity_for(plain, warn=warn)
        if entity is None:
            return None
        hit = entity.instantiate(plain)
        _FUNC_CACHE[plain] = hit
    return rebuild(hit)


def entity_for(f, warn=True, raise_errors=False):
    code = f.__code__
    hit = _CODE_CACHE.get(code)
    if hit is None:
        try:
            hit = _transform(f)
        except ConversionError as e:
            hit = e
        except Exception as e:   # a converter bug: run the function as written, and say so
            hit = ConversionError(f"internal AutoGraph error: {type(e).__name__}: {e}")
        _CODE_CACHE[code] = hit
        if isinstance(hit, ConversionError) and warn and not raise_errors:
            warnings.warn_explicit(
                f"AutoGraph could not convert {f.__qualname__} and will run it as-is (tensor-"
                f"dependent `if`/`while`/`for` in it will fail). Cause: {hit}",
                AutoGraphWarning, code.co_filename, code.co_firstlineno, registry={})
    if isinstance(hit, ConversionError):
        if raise_errors:
            raise hit
        return None
    return hit


# --- the transformation ---------------------------------------------------------------------
def _source_tree(f):
    """The FunctionDef (or, for a lambda, an equivalent FunctionDef) of `f`, with the user's
    line numbers and columns."""
    code = f.__code__
    try:
        lines, start = inspect.getsourcelines(code)
    except (OSError, TypeError) as e:
        raise ConversionError(f"its source code is not available ({e})") from None
    if code.co_name == _LAMBDA:
        # A lambda may continue past its logical line's block: read the file's lines on.
        import linecache
        all_lines = linecache.getlines(code.co_filename, f.__globals__)
        lines = all_lines[code.co_firstlineno - 1:code.co_firstlineno + 19] or lines
        return _find_lambda(lines, code)
    text = "".join(lines)
    indented = text[:1].isspace()
    # Parse indented blocks (methods, nested functions) under `if 1:` so columns stay true.
    wrapped = ("if 1:\n" + text) if indented else text
    try:
        module = ast.parse(wrapped)
    except SyntaxError:
        raise ConversionError("its source could not be parsed") from None
    ast.increment_lineno(module, start - (2 if indented else 1))
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == code.co_name:
            if isinstance(node, ast.AsyncFunctionDef):
                raise ConversionError("async functions are not converted")
            return node
    raise ConversionError(f"no definition of {code.co_name} found in its source")


def _lambda_nodes(lines, first_line):
    """Lambda expressions starting on the first of `lines`: for each `lambda` keyword there,
    the shortest following text that parses as a lambda."""
    head, rest = lines[0], "".join(lines[1:20])
    for m in re.finditer(r"\blambda\b", head):
        text = head[m.start():] + rest
        ends = [i for i, ch in enumerate(text) if ch in ",)]}\n"] + [len(text)]
        for end in ends:
            try:   # parenthesized, as the lambda may continue on the next lines
                node = ast.parse("(" + text[:end] + "\n)", mode="eval").body
            except SyntaxError:
                continue
            if isinstance(node, ast.Lambda):
                for n in ast.walk(node):
                    if getattr(n, "lineno", None) == 1:
                        n.col_offset += m.start() - 1
                    if getattr(n, "end_lineno", None) == 1:
                        n.end_col_offset += m.start() - 1
                ast.increment_lineno(node, first_line - 1)
                yield node
            break


def _find_lambda(lines, code):
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    cands = []
    for node in _lambda_nodes(lines, code.co_firstlineno):
        a = node.args
        if [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs] == params:
            cands.append(node)
    if len(cands) > 1:
        # Several lambdas with these parameters on the line: the body's first instruction
        # position picks the one whose body spans it.
        cols = [p[2] for p in code.co_positions()
                if p[0] == code.co_firstlineno and p[2] is not None and p[3] and p[3] > p[2]]
        col = min(cols) if cols else None
        cands = [c for c in cands if col is not None and c.body.lineno == code.co_firstlineno
                 and c.body.col_offset <= col < (c.body.end_col_offset or 1 << 30)]
        cands = cands[-1:]   # the innermost lambda spanning it
    if len(cands) != 1:
        raise ConversionError("the lambda could not be told apart from other lambdas on its "
                              "line" if cands else "the lambda's source could not be found")
    lam = cands[0]
    fn = ast.FunctionDef(name="__ag_lambda", args=lam.args,
                         body=[ast.Return(value=lam.body)], decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        fn.type_params = []
    ast.copy_location(fn, lam)
    ast.copy_location(fn.body[0], lam.body)
    return fn


def _strip_signature(fn):
    """Decorators, defaults and annotations belong to the original function object (they were
    evaluated when it was defined); the converted code object only needs the parameters."""
    fn.decorator_list = []
    fn.returns = None
    a = fn.args
    a.defaults = []
    a.kw_defaults = [None] * len(a.kwonlyargs)
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None


def _transform(f):
    code = f.__code__
    fn = _source_tree(f)
    is_lambda = code.co_name == _LAMBDA
    from .analysis import is_generator
    if is_generator(fn):
        raise ConversionError("generator and async functions are not converted")
    _strip_signature(fn)
    namer = Namer(fn)
    namer.used |= set(code.co_freevars) | {AG}
    FunctionConverter(namer).convert(fn)
    first_params = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name not in namer.generated:
            a = node.args
            ps = a.posonlyargs + a.args
            first_params[node] = ps[0].arg if ps else None
    fn = ExpressionConverter(first_params, "__class__" in code.co_freevars,
                             namer.guarded).visit(fn)
    # The converted source text (for to_code) and its map back to user lines.
    source = ast.unparse(fn)
    if is_lambda:
        source = source.replace("def __ag_lambda(", "def lambda__(", 1)
    line_map = _line_map(fn, source)
    # Compiled under a private name: the user's own name must stay a global (recursion).
    fn.name = "__ag_fn"
    factory = _factory(fn, code.co_freevars)
    try:
        module_code = compile(factory, code.co_filename, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise ConversionError(f"the converted code did not compile ({e.msg}); this is an "
                              f"AutoGraph limitation") from None
    factory_code = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType)
                 and c.co_name == "__ag_fn")
    inner = _rename(inner, code.co_name, namer.generated, code.co_qualname)
    return ConvertedEntity(inner, source, line_map, code.co_filename, code.co_qualname,
                           code.co_firstlineno)


def _factory(fn, freevars):
    params = [AG] + [v for v in freevars if v != AG]
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    factory = ast.FunctionDef(name="__ag_factory", args=args,
                              body=[fn, ast.Return(value=ast.Name(id=fn.name, ctx=ast.Load()))],
                              decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    ast.copy_location(factory, fn)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    return module


def _rename(code, owner: str, generated: set, qualname: str):
    """Generated helpers take the name of the user function they belong to; every resulting
    code object is remembered as converted."""
    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name in generated:
                c = _rename(c, owner, generated, qualname)
            else:
                name = "<lambda>" if c.co_name == "__ag_lambda" else c.co_name
                c = _rename(c, name, generated, f"{qualname}.<locals>.{name}")
        consts.append(c)
    new = code.replace(co_consts=tuple(consts), co_name=owner, co_qualname=qualname)
    CONVERTED_CODES.add(new)
    return new


def _line_map(fn, source: str) -> dict:
    """Converted-source line -> user line, by walking the re-parsed text alongside the AST
    (ast.unparse output parses back to the same tree shape)."""
    try:
        reparsed = ast.parse(source).body[0]
    except SyntaxError:
        return {}
    out = {}
    for a, b in zip(ast.walk(fn), ast.walk(reparsed)):
        la, lb = getattr(a, "lineno", None), getattr(b, "lineno", None)
        if la is not None and lb is not None and isinstance(a, ast.stmt):
            out.setdefault(lb, la)
    return out


# --- entry points ---------------------------------------------------------------------------
def to_code(f, recursive=True, experimental_optional_features=None) -> str:
    """TF's `tf.autograph.to_code`: the converted source of `f` as a string."""
    plain, _ = _unwrap_callable(f)
    if plain is None:
        raise TypeError(f"to_code: expected a Python function, got {f!r}")
    return entity_for(plain, raise_errors=True).source + "\n"


def for_tracing(f, features: frozenset = frozenset()):
    """What `Function` calls while tracing: the converted function, which re-raises errors
    with the "in user code:" block (only the outermost converted call rewrites them), or `f`
    itself when it is not converted. `features`: the `Feature`s enabled for this trace."""
    conv = convert(f)
    if conv is None:
        plain, _ = _unwrap_callable(f)
        code = getattr(plain, "__code__", None)
        if code is not None and code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                                                 inspect.CO_ASYNC_GENERATOR):
            warnings.warn_explicit(
                f"AutoGraph does not convert {plain.__qualname__} and will run it as-is. "
                f"Cause: generator and async functions are not supported",
                AutoGraphWarning, code.co_filename, code.co_firstlineno, registry={})
        return f
    return _with_user_errors(conv, features)


def _with_user_errors(conv, features):
    @functools.wraps(conv)
    def traced(*args, **kwargs):
        outermost = trace_state.enter(features)
        try:
            result = conv(*args, **kwargs)
            if outermost:
                _check_outputs(conv, result)
            return result
        except Exception as e:
            if not outermost or getattr(e, "_ag_rewritten", False):
                raise
            new = rewrite(e, CONVERTED_CODES)
            if new is e:
                raise
            raise new.with_traceback(e.__traceback__) from None
        finally:
            if outermost:
                trace_state.leave()
    return traced


def _check_outputs(conv, result):
    """TF's error for a generator returned from a traced function (it would be exhausted
    at trace time, or never run)."""
    from .. import nest
    for leaf in nest.flatten(result):
        if isinstance(leaf, types.GeneratorType):
            f = getattr(conv, "__wrapped_original__", conv)
            raise TypeError(f"To be compatible with tf.function, Python functions must return "
                            f"zero or more Tensors or ExtensionTypes or None values; in "
                            f"compilation of {f!r}, found return value of type generator, "
                            f"which is not a Tensor or ExtensionType.")


def source_stage(function) -> str:
    """The `source` compiler-IR stage of a Function."""
    if function is None:
        return "# (no Python function)"
    plain, _ = _unwrap_callable(function)
    if plain is None:
        return f"# {function!r} has no Python source"
    if not getattr(function, "_autograph", True):
        try:
            src = inspect.getsource(plain.__code__)
        except (OSError, TypeError):
            src = "# (source not available)\n"
        return "# autograph=False: traced as written\n" + src
    if not is_convertible(plain):
        return f"# {plain.__qualname__} is not converted by AutoGraph (do_not_convert, or " \
               f"not user code); it is traced as written"
    entity = entity_for(plain, warn=False)
    if entity is None:
        return f"# AutoGraph could not convert {plain.__qualname__}: " \
               f"{_CODE_CACHE.get(plain.__code__)}"
    return entity.annotated_source()
