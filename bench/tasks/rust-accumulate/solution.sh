#!/bin/bash
set -e
cat > 'src/lib.rs' <<'POSTHOC_EOF'
pub fn map<F, T, U>(values: Vec<T>, mut f: F) -> Vec<U>
where
    F: FnMut(T) -> U,
{
    let mut v = Vec::with_capacity(values.len());
    for val in values {
        v.push(f(val));
    }
    v
}
POSTHOC_EOF
