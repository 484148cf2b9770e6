"""tf.strings.to_number's parsing: decimal and prefixed hexadecimal floats, and the strings
TF refuses (no bare hex digits, no dangling exponent)."""
from oracle.spec import case as _case, T


def case(*args, **kwargs):
    return _case(*args, modes=("eager", "graph"), **kwargs)   # XLA has no strings

CASES = [
    case("strings.to_number", T(["0x10", "-0x1p3", " 1.5 ", "inf", "-nan", "1e400", "1e-50",
                                 ".5", "5.", "+5", "infinity", "0X1A"], "string")),
    case("strings.to_number", T(["1.5", "1e39", "1e-50"], "string"), out_type="float64"),
    case("strings.to_number", T(["+5", "-12", "2147483647"], "string"), out_type="int32"),
    *[case("strings.to_number", T([bad], "string"))
      for bad in ("abc", "1e", "f", "1_0", "1.5f", "", "0x", "1e+")],
    case("strings.to_number", T(["0x10"], "string"), out_type="int32"),
    case("strings.to_number", T(["2147483648"], "string"), out_type="int32"),
]
