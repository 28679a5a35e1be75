"""A Poisson bootstrap whose weights come from a hash of (unit id, replicate, seed): the same
weights in numpy, DuckDB and Spark SQL, so that a seed means the same thing in every engine
and a replicate needs no shared random stream (each row computes its own weight).

Each unit (a query, an item, a cluster) gets in replicate ``r`` the weight ``w`` drawn from
Poisson(1) by inverting its distribution function at a uniform ``u`` that is a hash of the
unit's id text, ``r`` and the seed, in integer arithmetic that every engine computes exactly:

* the unit's key ``k``: the first 8 hex digits of the MD5 of the id's UTF-8 text, as an
  integer, modulo ``P = 2**31 - 1`` (``md5`` is a function of DuckDB and of Spark SQL);
* ``y = ((r + 1) * 950706376 + seed mod P) mod P``, ``x = k XOR y``;
* three rounds of ``x = ((x XOR (x >> 15)) * M_i + C_i) mod P`` (multipliers of the
  Park-Miller family, products below 2**62, so 64-bit integers never overflow);
* ``u = (x XOR (x >> 15)) / 2**31`` (a double, exact);
* ``w`` = the number of Poisson(1) cumulative probabilities ``F(0) .. F(12)`` that are at most
  ``u`` (the inverse distribution function; ``P(X > 13)`` is below 1e-10, such draws count 13).

A replicate's mean is ``sum(w x) / sum(w)`` over the units (a replicate whose weights are all
0, probability ``e**-n``, is left out); the interval is the percentile interval of the
replicate means.  The weights are checked equal across the three implementations and the
replicate means to 1e-12 (``tests/test_poisson_bootstrap.py``); their mean and variance
are Poisson(1)'s and replicates are uncorrelated (tested on a million draws).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from ..core.blas import single_threaded

#: the modulus of the hash's arithmetic (a Mersenne prime)
P = 2**31 - 1
#: the replicate's multiplier and the rounds' (multiplier, increment)
R_MULT = 950706376
ROUNDS = ((742938285, 12345), (1226874159, 67890), (62089911, 13579))
#: the largest weight drawn (Poisson(1) beyond 13: probability below 1e-10)
MAX_WEIGHT = 13
#: Poisson(1)'s distribution function F(0) .. F(MAX_WEIGHT - 1)
CDF = tuple(float(sum(math.exp(-1.0) / math.factorial(j) for j in range(i + 1)))
            for i in range(MAX_WEIGHT))
SIGNATURE = "poisson-hash(md5,xorshift-mod-2^31-1)"


def unit_keys(ids) -> np.ndarray:
    """Each unit id's key (int64 in [0, P)): MD5 of its text, first 8 hex digits, mod P."""
    return np.fromiter((int(hashlib.md5(str(i).encode("utf-8")).hexdigest()[:8], 16) % P
                        for i in ids), dtype=np.int64, count=len(ids))


def uniforms(keys: np.ndarray, replicates, seed: int) -> np.ndarray:
    """``u`` for every (unit, replicate): shape (len(keys), len(replicates))."""
    k = np.asarray(keys, dtype=np.int64)[:, None]
    r = np.asarray(replicates, dtype=np.int64)[None, :]
    y = ((r + 1) * R_MULT + int(seed) % P) % P
    x = (k ^ y) % P
    for mult, inc in ROUNDS:
        x = ((x ^ (x >> 15)) * mult + inc) % P
    return (x ^ (x >> 15)).astype(float) / 2.0**31


def weights(keys: np.ndarray, replicates, seed: int) -> np.ndarray:
    """Poisson(1) weights (int8) for every (unit, replicate)."""
    u = uniforms(keys, replicates, seed)
    return np.searchsorted(np.asarray(CDF), u, side="right").astype(np.int8)


@single_threaded
def replicate_means(values, ids=None, *, resamples: int, seed: int, keys=None,
                    denominators=None, chunk: int = 256) -> np.ndarray:
    """Each replicate's weighted mean of every column of ``values`` (n units x m columns, or a
    vector): ``sum(w x) / sum(w)`` (or ``sum(w x) / sum(w d)`` with per-unit ``denominators``,
    a cluster's item count); NaN for a replicate whose weights are all 0.  Shape (resamples, m)."""
    x = np.asarray(values, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    keys = unit_keys(ids) if keys is None else np.asarray(keys, dtype=np.int64)
    den = np.ones(x.shape[0]) if denominators is None else np.asarray(denominators, dtype=float)
    out = np.empty((int(resamples), x.shape[1]))
    for start in range(0, int(resamples), chunk):
        reps = np.arange(start, min(start + chunk, int(resamples)))
        w = weights(keys, reps, seed).astype(float)  # units x replicates
        total = w.T @ den
        with np.errstate(invalid="ignore", divide="ignore"):
            out[reps] = (w.T @ x) / total[:, None]
        out[reps[total == 0]] = np.nan
    return out


# --------------------------------------------------------------------------- SQL

def _sql_key(id_sql: str, dialect: str) -> str:
    head = f"substr(md5(CAST({id_sql} AS VARCHAR)), 1, 8)" if dialect == "duckdb" else \
        f"substr(md5(CAST({id_sql} AS STRING)), 1, 8)"
    as_int = (f"CAST(('0x' || {head}) AS BIGINT)" if dialect == "duckdb"
              else f"CAST(conv({head}, 16, 10) AS BIGINT)")
    return f"({as_int} % {P})"


def _xor(a: str, b: str, dialect: str) -> str:
    return f"xor({a}, {b})" if dialect == "duckdb" else f"(({a}) ^ ({b}))"


def _shr(a: str, n: int, dialect: str) -> str:
    return f"(({a}) >> {n})" if dialect == "duckdb" else f"shiftright({a}, {n})"


def weight_sql(key_sql: str, rep_sql: str, seed: int, dialect: str) -> str:
    """SQL of the weight of the unit whose key is ``key_sql`` in replicate ``rep_sql``."""
    y = f"((({rep_sql}) + 1) * {R_MULT} + {int(seed) % P}) % {P}"
    x = f"({_xor(key_sql, y, dialect)} % {P})"
    for mult, inc in ROUNDS:
        x = f"(({_xor(x, _shr(x, 15, dialect), dialect)}) * {mult} + {inc}) % {P}"
    u = f"(CAST({_xor(x, _shr(x, 15, dialect), dialect)} AS DOUBLE) / {2.0**31!r})"
    return " + ".join(f"CASE WHEN {u} >= CAST({c!r} AS DOUBLE) THEN 1 ELSE 0 END" for c in CDF)


def means_sql(relation: str, id_col: str, value_cols, *, resamples: int, seed: int,
              dialect: str = "duckdb", denominator: str | None = None) -> str:
    """A query giving ``(replicate, mean_0, mean_1, ...)`` for replicates 0 .. resamples-1 over
    ``relation`` (one row per unit; ``id_col`` its id text), ordered by replicate."""
    reps = (f"range({int(resamples)}) AS reps(r)" if dialect == "duckdb"
            else f"(SELECT id AS r FROM range({int(resamples)})) reps")
    den = f"CAST({denominator} AS DOUBLE)" if denominator else "1.0"
    sums = ", ".join(f"sum(w * CAST({c} AS DOUBLE)) / sum(w * {den}) AS mean_{i}"
                     for i, c in enumerate(value_cols))
    return (f"SELECT r, {sums} FROM (SELECT reps.r AS r, u.*, "
            f"{weight_sql('u.k', 'reps.r', seed, dialect)} AS w FROM "
            f"(SELECT *, {_sql_key(id_col, dialect)} AS k FROM {relation}) u CROSS JOIN {reps}) t "
            f"GROUP BY r ORDER BY r")
