#!/bin/bash
set -e
BATS_RUN_SKIPPED=true bats *.bats
