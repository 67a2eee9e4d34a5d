"""float32 values as NNC writes them: ``str(np.float32(v))``, a whole array at a time.

NNC's CSV outputs (``output_result.csv``, the 2-D output files) hold each float32 value as
NumPy's text of it: the fewest significant digits that read back as the same float32 (NumPy's
Dragon4, "unique" mode), positional for ``1e-4 <= |v| < 1e6`` (``0.00012``, ``3.0``,
``999999.94``), otherwise scientific with a two-digit exponent (``1e-05``, ``1.2345679e+08``).
NumPy formats one value at a time, about 0.7 us each.

Here the digits of a whole array are found with float64 and int64 arithmetic. The reals that
round to a float32 lie strictly between the half-way points to its two neighbours (exact in
float64). Scaled so that the interval holds several integers, the integers inside are counted
off; the coarsest power of ten with a multiple inside gives the fewest digits, and the multiple
nearest the value is Dragon4's choice. A value is left to NumPy wherever float64 rounding could
decide (a bound of the interval within 1e-14 of an integer, two multiples as near), as are
infinities and NaNs, so every text is NumPy's own (checked against NumPy on millions of random
bit patterns in tests/data/test_float32_text.py). Then the characters are placed in a byte
matrix, one fixed-width slot per value, and the padding dropped.
"""

from __future__ import annotations

import numpy as np

__all__ = ["float32_rows", "float32_texts"]

_WIDTH = 15  # characters of a slot: the longest text is 14 (-1.2345678e-38, 0.00012345678) + 1
_POW = 10 ** np.arange(19, dtype=np.int64)
_K_MIN, _K_MAX = -80, 45
_SCALE = np.array([float(f"1e{-k}") for k in range(_K_MIN, _K_MAX + 1)])  # 10**-k, rounded
_TOL = 1e-14  # relative: far above the two float64 roundings (2.3e-16) of a scaled value
_MAX32 = np.finfo(np.float32).max
_ZERO = np.uint8(ord("0"))
# the ASCII digits of 0..999, units first, in the first three bytes of a uint32 each
_THREE = np.zeros((1000, 4), dtype=np.uint8)
_THREE[:, :3] = _ZERO + np.arange(1000)[:, None] // np.array([1, 10, 100]) % 10
_THREE = _THREE.view(np.uint32)[:, 0].copy()


def float32_texts(values: np.ndarray) -> np.ndarray:
    """``values`` as float32, each as ``str(np.float32(v))``: a NumPy string array of the
    same shape, what ``values.astype(np.float32).astype(str)`` gives."""
    x = np.asarray(values, dtype=np.float32)
    flat = x.reshape(-1, 1)
    texts = np.array(float32_rows(flat) if flat.size else [], dtype="U16")
    return texts.reshape(x.shape)


def float32_rows(values: np.ndarray) -> list[str]:
    """Each row of a 2-D array as float32 texts joined by commas (an ``output_result.csv``
    row's output cells): ``",".join(row.astype(np.float32).astype(str))`` per row."""
    x = np.ascontiguousarray(values, dtype=np.float32)
    rows, columns = x.shape
    if rows == 0:
        return []
    if columns == 0:
        return [""] * rows
    chars = np.zeros((rows, columns, _WIDTH + 1), dtype=np.uint8)
    slots = chars.reshape(rows * columns, _WIDTH + 1)
    slots[:, :_WIDTH] = _characters(x.reshape(-1))
    chars[:, :-1, _WIDTH] = ord(",")
    chars[:, -1, _WIDTH] = ord("\n")
    text = chars[chars != 0].tobytes().decode("ascii")
    return text.split("\n")[:-1]


def _characters(x: np.ndarray) -> np.ndarray:
    """One slot of ASCII codes per float32 value, zero-padded on the right."""
    negative = np.signbit(x)
    magnitude = np.abs(x)
    finite = np.isfinite(magnitude)
    regular = finite & (magnitude != 0)
    digits = np.zeros(len(x), dtype=np.int64)  # zeros: 0 * 10**0, written 0.0
    exponent = np.zeros(len(x), dtype=np.int64)
    unsure = ~finite
    index = np.flatnonzero(regular)
    if index.size:
        d, e, u = _shortest(magnitude[index])
        digits[index], exponent[index] = d, e
        unsure[index] = u
    with np.errstate(invalid="ignore"):
        value = magnitude.astype(np.float64)
    positional = (value == 0) | ((value >= 1e-4) & (value < 1e6))
    count = np.searchsorted(_POW, digits, side="right")
    count[digits == 0] = 1
    lead = exponent + count - 1  # the decimal exponent of the first digit
    lead[unsure] = 0
    # the source of each character: the digits' own text, then the fixed characters
    source = np.empty((len(x), _SOURCE), dtype=np.uint8)
    groups = source.view(np.uint32)  # digits below 10**9: three groups of three, units first
    small = digits.astype(np.int32)
    groups[:, 0] = _THREE[small % 1000]
    groups[:, 1] = _THREE[(small // 1000) % 1000]
    groups[:, 2] = _THREE[small // 1000000]
    source[:, 12:] = _FIXED
    key = ((positional * 2 + negative) * 10 + count) * _LEADS + (lead - _LEAD_MIN)
    rows = np.arange(len(x))[:, None] * _SOURCE  # np.take on the flat source: ~3x faster
    chars = np.take(source.reshape(-1), _patterns(key) + rows)  # than np.take_along_axis
    for i in np.flatnonzero(unsure):  # NumPy's own text (infinities, NaNs, the doubtful)
        code = np.frombuffer(str(x[i]).encode("ascii"), dtype=np.uint8)
        chars[i] = 0
        chars[i, : len(code)] = code
    return chars


def _shortest(magnitude: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dragon4's digits of positive finite float32 values: ``(digits, exponent, unsure)``
    with each value's text ``digits * 10**exponent`` (no trailing zero in ``digits``)."""
    value = magnitude.astype(np.float64)
    below = np.nextafter(magnitude, np.float32(0)).astype(np.float64)
    with np.errstate(over="ignore"):  # the largest float32's neighbour is infinite
        above = np.nextafter(magnitude, np.float32(np.inf)).astype(np.float64)
    top = magnitude == _MAX32  # no float32 above it: the gap above is the gap below
    above[top] = value[top] + (value[top] - below[top])
    low, high = (value + below) / 2, (value + above) / 2  # exact: 25 significant bits
    # a grid at least ten times finer than the interval: several integers inside it
    exponent = np.floor(np.log10(high - low)).astype(np.int64) - 1
    scale = _SCALE[exponent - _K_MIN]
    scaled, lower, upper = value * scale, low * scale, high * scale
    tol = _TOL * scaled
    first = np.floor(lower).astype(np.int64) + 1  # the integers strictly inside
    last = np.ceil(upper).astype(np.int64) - 1
    unsure = (np.abs(lower - np.rint(lower)) <= tol) | (np.abs(upper - np.rint(upper)) <= tol)
    power = np.zeros(len(value), dtype=np.int64)  # the coarsest 10**power with a multiple inside
    active = np.arange(len(value))
    while active.size:
        step = _POW[power[active] + 1]
        has = (last[active] // step) * step >= first[active]
        active = active[has]
        power[active] += 1
    step = _POW[power]
    low_q = -(-first // step)  # the multiples inside: low_q * step .. high_q * step
    high_q = last // step
    ratio = scaled / step
    nearest = np.clip(np.rint(ratio).astype(np.int64), low_q, high_q)
    tie = np.abs(np.abs(ratio - np.floor(ratio)) - 0.5) <= tol / step
    unsure |= tie & (high_q > low_q)
    return nearest, exponent + power, unsure


_LEAD_MIN, _LEADS = -50, 100  # first-digit exponents of float32 texts: -45..38
# source columns: the digit of 10**j at j + j // 3 (0..10), then the fixed characters
_FIXED = np.frombuffer(b".e+-0123456789\0\0", dtype=np.uint8)
_SOURCE = 12 + len(_FIXED)  # 28 bytes a row: seven uint32


def _source(char: str) -> int:
    return 12 + _FIXED.tobytes().index(char.encode("ascii"))


def _digit(j: int) -> int:
    return j + j // 3


def _pattern(positional: bool, negative: bool, count: int, lead: int) -> list[int]:
    """The source column of each character of a text: ``digits * 10**exponent`` with
    ``count`` digits, the first at ``10**lead`` (column j holds the digit of 10**j in
    ``digits``)."""
    if count == 0:  # no such text (a zero has one digit): keys with count 0 are never used
        return [_source("\0")] * _WIDTH
    out = [_source("-")] if negative else []
    exponent = lead - count + 1
    if positional:  # 0.0125, 12.5, 120.0: the digits of 10**top .. 10**bottom
        for place in range(max(lead, 0), min(exponent, -1) - 1, -1):
            index = place - exponent  # of the digit in ``digits``
            out.append(_digit(index) if 0 <= index < count else _source("0"))
            if place == 0:
                out.append(_source("."))
    else:  # 1.25e-05, 1e+06
        out.append(_digit(count - 1))
        if count > 1:
            out += [_source("."), *(_digit(j) for j in range(count - 2, -1, -1))]
        out += [_source("e"), _source("-" if lead < 0 else "+")]
        out += [_source(str(abs(lead) // 10)), _source(str(abs(lead) % 10))]
    out = out[:_WIDTH]  # patterns no float32 has (a 9-digit 0.0000123456789) are cut short
    return out + [_source("\0")] * (_WIDTH - len(out))


def _patterns(key: np.ndarray) -> np.ndarray:
    """The pattern of each key, ``((positional * 2 + negative) * 10 + count) * _LEADS + lead
    - _LEAD_MIN``: the table's rows are made the first time a key is met (a few dozen in an
    evaluation, ~12 us each; all 4,000 would cost ~50 ms at import)."""
    missing = key[~_BUILT[key]]
    for k in set(missing.tolist()):  # (np.unique's first call costs ~13 ms of imports)
        rest, lead = divmod(k, _LEADS)
        rest, count = divmod(rest, 10)
        positional, negative = divmod(rest, 2)
        _PATTERNS[k] = _pattern(bool(positional), bool(negative), count, lead + _LEAD_MIN)
        _BUILT[k] = True  # after its row: a concurrent caller builds the same row again
    return _PATTERNS[key]


_PATTERNS = np.zeros((2 * 2 * 10 * _LEADS, _WIDTH), dtype=np.intp)
_BUILT = np.zeros(len(_PATTERNS), dtype=bool)
