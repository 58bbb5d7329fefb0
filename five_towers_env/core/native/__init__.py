"""The game-neutral side of the native (C++) engines: generator states across the boundary, and the loader.

The C++ headers beside this file (``rng.hpp``, ``vector_env.hpp``, ``bind_common.hpp``) are shared by every
game's extension module (``five_towers_env/games/<game>/native/``). ``rng.hpp`` is numpy's default generator
bit for bit (PCG64 seeded through SeedSequence), so a generator's state moves between a numpy
``Generator`` and a native state as six integers (:func:`words_of_generator`, :func:`generator_from_words`)
and ``default_rng(seed)`` deals the same cards on both backends.
"""
from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np

_MASK64 = (1 << 64) - 1
#: why each game's extension module failed to import (module name -> message), for the error that says why
_IMPORT_ERRORS: dict[str, str] = {}


def words_of_generator(rng: np.random.Generator) -> tuple[int, int, int, int, int, int]:
    """A PCG64 generator's state as six 64-bit words (state hi, lo, inc hi, lo, has_uint32, uinteger);
    ``ValueError`` for any other bit generator (the native engines draw only as PCG64 does)."""
    state = rng.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise ValueError("the native engines need a PCG64 generator (numpy's default), "
                         f"got {state.get('bit_generator')}")
    s, inc = int(state["state"]["state"]), int(state["state"]["inc"])
    return (s >> 64, s & _MASK64, inc >> 64, inc & _MASK64, int(state["has_uint32"]), int(state["uinteger"]))


def set_generator_words(rng: np.random.Generator, words: tuple[int, ...] | list[int]) -> None:
    """Put the six words of :func:`words_of_generator` into ``rng`` (a PCG64 generator)."""
    s_hi, s_lo, i_hi, i_lo, has32, uint = (int(w) for w in words)
    rng.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": (s_hi << 64) | s_lo, "inc": (i_hi << 64) | i_lo},
                               "has_uint32": has32, "uinteger": uint}


def generator_from_words(words: tuple[int, ...] | list[int]) -> np.random.Generator:
    """A new numpy generator in the state the six words describe."""
    rng = np.random.Generator(np.random.PCG64())
    set_generator_words(rng, words)
    return rng


def load_extension(module: str) -> ModuleType | None:
    """The compiled module ``module``, or None when it was not built (the reason is kept for
    :func:`import_error`)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        _IMPORT_ERRORS[module] = f"{type(exc).__name__}: {exc}"
        return None


def import_error(module: str) -> str:
    """Why ``module`` could not be imported (empty if it was, or was never tried)."""
    return _IMPORT_ERRORS.get(module, "")


__all__ = ["words_of_generator", "generator_from_words", "set_generator_words", "load_extension", "import_error"]
