# The SQLite page differ (pagediff.c), a Node-API addon: the same binary loads in Node and in Electron.
# Built by scripts/build-native.mjs on npm install; where it is missing, SQLite actions are captured with
# per-row triggers instead.
{
  "targets": [
    {
      "target_name": "posthoc_pagediff",
      "sources": ["pagediff.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "conditions": [["OS=='win'", { "type": "none", "sources!": ["pagediff.c"] }]]
    }
  ]
}
