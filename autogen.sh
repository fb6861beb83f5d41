#!/bin/sh
# Generates configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
# configure.ac asks automake for the TAP driver (AC_REQUIRE_AUX_FILE), so
# autoreconf alone is enough; this script stays for habit and build.sh.
autoreconf -fi
