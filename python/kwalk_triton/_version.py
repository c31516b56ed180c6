"""_version.py: kwalk's version, as CMake's project(kwalk VERSION ...) says
(tests/triton checks that the two agree)."""

VERSION = "0.1.0"
