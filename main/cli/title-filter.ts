// The model's streamed text as `posthoc run` prints it: without the <title>…</title> the first reply carries
// (the task's title, shown apart by tasks and the app), across chunk borders. What is held back at a chunk's
// end is only a possible start of a tag, given out by flush() when the message ends.
const OPEN = '<title>';
const CLOSE = '</title>';

export type TitleFilter = { push(chunk: string): string; flush(): string };

export function titleFilter(): TitleFilter {
  let held = '';
  let inside = false;
  /** Just after a title: the line it ended goes with it, whichever chunk brings its newline. */
  let afterTitle = false;
  return {
    push(chunk: string): string {
      held += chunk;
      if (afterTitle && held.length > 0) {
        if (held.startsWith('\n')) held = held.slice(1);
        afterTitle = false;
      }
      let out = '';
      for (;;) {
        const tag = inside ? CLOSE : OPEN;
        const at = held.indexOf(tag);
        if (at < 0) {
          const keep = partialTag(held, tag);
          if (!inside) out += held.slice(0, held.length - keep);
          held = held.slice(held.length - keep);
          return out;
        }
        if (!inside) out += held.slice(0, at);
        held = held.slice(at + tag.length);
        if (inside) {
          if (held.startsWith('\n')) held = held.slice(1);
          else afterTitle = held.length === 0;
        }
        inside = !inside;
      }
    },
    flush(): string {
      const rest = inside ? '' : held;
      held = '';
      inside = false;
      return rest;
    },
  };
}

/** How many characters at the end of `text` could begin `tag`. */
function partialTag(text: string, tag: string): number {
  for (let k = Math.min(tag.length - 1, text.length); k > 0; k--) if (text.endsWith(tag.slice(0, k))) return k;
  return 0;
}
