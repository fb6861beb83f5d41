#!/bin/sh
# Generates configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
# The TAP driver of the end-to-end tests comes with automake.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/
autoreconf -fi
