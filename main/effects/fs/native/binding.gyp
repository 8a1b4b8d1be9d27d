# The folder lister (lister.c), a Node-API addon: the same binary loads in Node and in Electron.
# Built by scripts/build-native.mjs on npm install; Windows uses the JavaScript lister instead.
{
  "targets": [
    {
      "target_name": "posthoc_lister",
      "sources": ["lister.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "conditions": [["OS=='win'", { "type": "none", "sources!": ["lister.c"] }]]
    }
  ]
}
