#!/bin/bash
set -e
python3 --version
python3 -m pytest --version
