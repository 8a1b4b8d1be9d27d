#!/bin/bash
set -e
cargo test -- --include-ignored
