// Keeps the head and the tail of an output stream and counts what was cut in between, so a runaway
// action cannot fill memory and the card still shows how it started and how it ended.
export class OutputCap {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(
    private readonly headLimit = 64 * 1024,
    private readonly tailLimit = 64 * 1024,
  ) {}

  get truncated(): boolean {
    return this.total > this.headLimit + this.tailLimit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes > this.tailLimit && this.tail.length > 0) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    const cut = this.total - this.headBytes - this.tailBytes;
    return cut > 0 ? `${head}\n[… ${cut} bytes cut by Posthoc …]\n${tail}` : head + tail;
  }
}
