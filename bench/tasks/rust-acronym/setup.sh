#!/bin/bash
set -e
apt-get update
apt-get install -y cargo
cargo --version
