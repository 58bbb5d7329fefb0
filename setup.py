"""The native (C++17) cores of the games, built where a compiler exists; pyproject.toml holds the rest.

Each game with a ``native/`` folder gets one extension module, ``<game package>._native``, from the
folder's ``*.cpp`` and the shared headers in ``five_towers_env/core/native``. A failed build (no compiler,
``CC=false``, a missing header) is reported and skipped: the install still succeeds with the Python
engines, and the package says on first use that the native core is missing and how to get it.

Environment: ``FIVE_TOWERS_NO_NATIVE=1`` skips the build; ``FIVE_TOWERS_SANITIZE=1`` builds with
AddressSanitizer and UndefinedBehaviorSanitizer (CI's sanitizer run, .ci/sanitize.sh),
``FIVE_TOWERS_SANITIZE=thread`` with ThreadSanitizer (.ci/tsan.sh);
``FIVE_TOWERS_NATIVE_REQUIRED=1`` makes a failed build an error (CI's main install).
"""
from __future__ import annotations

import os
import sys
from glob import glob
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
CORE_HEADERS = "five_towers_env/core/native"


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip() not in ("", "0")


def native_extensions() -> list[Extension]:
    """One extension per game folder with C++ sources (none when the build is switched off or pybind11 is missing)."""
    if _flag("FIVE_TOWERS_NO_NATIVE"):
        return []
    try:
        import pybind11
    except ImportError:  # only outside pip's isolated build, which installs it (pyproject.toml)
        if _flag("FIVE_TOWERS_NATIVE_REQUIRED"):
            raise SystemExit("five_towers_env: pybind11 is missing and FIVE_TOWERS_NATIVE_REQUIRED is set") from None
        print("five_towers_env: pybind11 is not installed: the native core is not built", file=sys.stderr)
        return []
    compile_args = ["-std=c++17", "-O3", "-g0", "-fvisibility=hidden", "-Wall", "-Wextra"]
    link_args: list[str] = []
    if _flag("FIVE_TOWERS_SANITIZE"):
        if os.environ["FIVE_TOWERS_SANITIZE"].strip() == "thread":
            sanitize = ["-fsanitize=thread", "-fno-omit-frame-pointer", "-g"]
        else:
            sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer",
                        "-g"]
        compile_args = [a for a in compile_args if a not in ("-O3", "-g0")] + ["-O1", *sanitize]
        link_args += sanitize
    extensions = []
    for folder in sorted(HERE.glob("five_towers_env/games/*/native")):
        sources = sorted(str(p.relative_to(HERE)) for p in folder.glob("*.cpp"))
        if not sources:
            continue
        package = ".".join(folder.parent.relative_to(HERE).parts)
        extensions.append(Extension(
            f"{package}._native", sources, language="c++",
            include_dirs=[pybind11.get_include(), CORE_HEADERS, str(folder.relative_to(HERE))],
            depends=sorted(glob(f"{CORE_HEADERS}/*.hpp") + glob(f"{folder.relative_to(HERE)}/*.hpp")),
            extra_compile_args=compile_args, extra_link_args=link_args))
    return extensions


class OptionalBuildExt(build_ext):
    """Build each native core if possible; a failure leaves the Python engines (unless required)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # the games' cores side by side
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler at all (distutils' platform errors)
            self._skip("the native cores", exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # a compiler that fails (CC=false, missing headers)
            self._skip(ext.name, exc)

    def _skip(self, what: str, exc: Exception) -> None:
        if _flag("FIVE_TOWERS_NATIVE_REQUIRED"):
            raise exc
        print(f"five_towers_env: could not build {what} ({type(exc).__name__}: {exc}); installing the Python "
              "engines only (a C++17 compiler builds the native core)", file=sys.stderr)


setup(ext_modules=native_extensions(), cmdclass={"build_ext": OptionalBuildExt})
