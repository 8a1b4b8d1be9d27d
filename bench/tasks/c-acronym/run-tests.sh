#!/bin/bash
set -e
sed -i 's#TEST_IGNORE();#// &#' test_*.c
make
