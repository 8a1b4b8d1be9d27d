# Two Node-API addons; the same binaries load in Node and in Electron. Built by scripts/build-native.mjs on
# npm install; Windows uses JavaScript fallbacks instead.
#   posthoc_lister   lister.c: lists folders with their entries' stat fields, for checkpoints
#   posthoc_beneath  beneath.c, beneath-open.c: opens and changes paths beneath a granted folder without following links
{
  "targets": [
    {
      "target_name": "posthoc_lister",
      "sources": ["lister.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "conditions": [["OS=='win'", { "type": "none", "sources!": ["lister.c"] }]]
    },
    {
      "target_name": "posthoc_beneath",
      "sources": ["beneath.c", "beneath-open.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "conditions": [["OS=='win'", { "type": "none", "sources!": ["beneath.c", "beneath-open.c"] }]]
    }
  ]
}
