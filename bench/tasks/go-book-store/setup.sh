#!/bin/bash
set -e
apt-get update
apt-get install -y golang-go
go version
