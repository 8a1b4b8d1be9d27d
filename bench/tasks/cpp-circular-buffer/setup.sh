#!/bin/bash
set -e
cmake --version | head -n 1
g++ --version | head -n 1
make --version | head -n 1
