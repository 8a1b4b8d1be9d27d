#!/bin/bash
set -e
gcc --version | head -n 1
make --version | head -n 1
