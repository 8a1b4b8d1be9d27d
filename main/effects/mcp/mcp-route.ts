// The gateway's /mcp route: how code in the sandbox calls the tools of the MCP servers granted to its task.
//   GET  $POSTHOC_GATEWAY/mcp              → the granted servers, their tools with full input schemas and rules
//   POST $POSTHOC_GATEWAY/mcp/SERVER/TOOL  → the tool's answer {content, structuredContent, isError}, JSON arguments as body
// Each call is checked before it can reach the server: granted, a known tool, arguments valid against the
// tool's input schema (ajv), the person's rules (denied: refused; held: waits for approval). Every call, sent
// or refused, is an McpEffect on the running action, arguments and answer redacted and cut short, with the
// exact call that takes it back when the server's inverse data knows one. What the sandbox gets is bounded.
import type { default as Ajv, ValidateFunction } from 'ajv';
import type { Effect, Task } from '../../../shared/domain';
import type { McpEffect, McpToolView } from '../../../shared/domain/mcp';
import { deriveInverse, isFolderOnly } from './inverses';
import type { McpHub, ToolResult } from './mcp-hub';
import { judgeToolCall, keepBack, type HoldWait } from './rules';

/** The part of the gateway's route context this route reads (main/gateway/gateway.ts RouteContext). */
export type McpRouteContext = {
  task: Task;
  actionId: string;
  recordEffect(effect: Effect): void;
  changed(): void;
  signal: AbortSignal;
  redactor: { text(input: string): string };
  limits?: { responseBytes: number };
};
export type McpRequest = { method: string; path: string; body: Buffer };
export type McpReply = { status: number; body: object };

/** The most of a tool's answer the sandbox gets (the gateway's response cap may be lower). */
export const RESULT_BYTES = 1024 * 1024;
/** How much of the arguments and of the answer an effect keeps (head and tail). */
export const EFFECT_CHARS = 4096;

export type McpRouteOptions = {
  /** The names of the MCP servers granted to the task. */
  granted(task: Task): readonly string[];
  /** The gateway's Holds.wait. */
  wait: HoldWait;
};

export class McpRoute {
  private readonly validators = new WeakMap<object, ValidateFunction | null>();
  /** ajv for draft-07 schemas and for 2019-09/2020-12 ones, loaded on the first tool call, not with the services. */
  private ajvs: Promise<{ ajv: Ajv; ajv2020: Ajv }> | null = null;

  constructor(
    private readonly hub: McpHub,
    private readonly options: McpRouteOptions,
  ) {}

  readonly route = async (ctx: McpRouteContext, req: McpRequest): Promise<McpReply> => {
    const parts = req.path.split('/').filter((p) => p !== '').map(decodeSafely);
    const granted = this.options.granted(ctx.task);
    if (req.method === 'GET' && parts.length === 0) return { status: 200, body: { servers: await this.describe(ctx, granted) } };
    if (req.method === 'GET' && parts.length === 1) {
      if (!granted.includes(parts[0]!)) return { status: 403, body: { error: notGranted(parts[0]!, granted), refused: true } };
      return { status: 200, body: (await this.describe(ctx, [parts[0]!]))[0]! };
    }
    if (parts.length !== 2) {
      return { status: 404, body: { error: `No MCP route ${req.path}. Use GET $POSTHOC_GATEWAY/mcp for the granted servers and tools, and POST $POSTHOC_GATEWAY/mcp/SERVER/TOOL with the arguments as a JSON object.` } };
    }
    if (req.method !== 'POST') return { status: 405, body: { error: 'Call a tool with POST, the arguments as a JSON object in the body.' } };
    return this.call(ctx, parts[0]!, parts[1]!, req.body, granted);
  };

  private async describe(ctx: McpRouteContext, names: readonly string[]): Promise<object[]> {
    return Promise.all(
      names.map(async (name) => {
        const server = this.hub.definition(name);
        if (!server) return { name, transport: null, tools: [], error: `The server "${name}" is granted but no longer defined; ask the person to add it again.` };
        try {
          const tools = await this.hub.tools(ctx.task.id, name, ctx.signal);
          return { name, transport: server.transport.kind, tools };
        } catch (error) {
          return { name, transport: server.transport.kind, tools: [], error: ctx.redactor.text(`The server "${name}" could not be reached: ${messageOf(error)}`) };
        }
      }),
    );
  }

  private async call(ctx: McpRouteContext, name: string, toolName: string, body: Buffer, granted: readonly string[]): Promise<McpReply> {
    const started = performance.now();
    const server = this.hub.definition(name);
    const effect: McpEffect = {
      channel: 'mcp',
      server: name,
      transport: server?.transport.kind ?? 'stdio',
      tool: toolName,
      arguments: cut(ctx.redactor.text(body.toString('utf8'))),
      result: null,
      isError: false,
      durationMs: 0,
      mutating: false,
      refused: null,
      inverse: null,
      hold: null,
    };
    let recorded = false;
    const record = (): void => {
      effect.durationMs = Math.round(performance.now() - started);
      if (recorded) ctx.changed();
      else ctx.recordEffect(effect);
      recorded = true;
    };
    const refuse = (status: number, message: string): McpReply => {
      effect.refused = ctx.redactor.text(message);
      record();
      return { status, body: { error: effect.refused, refused: true } };
    };

    if (!granted.includes(name)) return refuse(403, notGranted(name, granted));
    if (!server) return refuse(403, `The MCP server "${name}" is granted but no longer defined, so the call was not sent. Ask the person to add it again (posthoc mcp add ${name} …).`);

    let args: unknown;
    try {
      args = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    } catch {
      return refuse(400, `The body is not JSON. Send the arguments of ${name}.${toolName} as a JSON object, for example {"path": "notes.txt"}.`);
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return refuse(400, `Send the arguments of ${name}.${toolName} as a JSON object (named arguments), not ${Array.isArray(args) ? 'a list' : typeof args}.`);
    effect.arguments = cut(ctx.redactor.text(JSON.stringify(args)));

    let tools: McpToolView[];
    try {
      tools = await this.hub.tools(ctx.task.id, name, ctx.signal);
    } catch (error) {
      return refuse(502, `The MCP server "${name}" could not be reached, so ${toolName} was not called: ${messageOf(error)}`);
    }
    const tool = tools.find((t) => t.name === toolName);
    if (!tool) {
      const names = tools.map((t) => t.name);
      return refuse(404, `The server "${name}" has no tool "${toolName}". Its tools: ${names.length > 30 ? `${names.slice(0, 30).join(', ')} and ${names.length - 30} more` : names.join(', ') || 'none'}.`);
    }
    effect.annotations = tool.annotations;
    const problem = this.check(await this.loadAjv(), tool, args);
    if (problem) return refuse(422, `The arguments of ${name}.${toolName} do not fit its input schema, so it was not called: ${problem}. See help(${name}.${toolName}) or GET $POSTHOC_GATEWAY/mcp/${name} for the schema.`);

    const verdict = judgeToolCall(server, tool);
    effect.mutating = verdict.mutating;
    if (isFolderOnly(server.api, server.transport.kind)) effect.folderOnly = true;
    if (verdict.kind === 'refuse') return refuse(403, verdict.message);
    if (verdict.kind === 'hold') {
      const stopped = await keepBack(this.options.wait, ctx.task.id, `${name}.${toolName}`, verdict.reason, (hold) => {
        effect.hold = hold;
        record();
      }, ctx.signal);
      if (stopped) return refuse(409, stopped);
    }

    let result: ToolResult;
    try {
      result = await this.hub.call(ctx.task.id, name, toolName, args as Record<string, unknown>, ctx.signal);
    } catch (error) {
      const message = ctx.redactor.text(`${name}.${toolName} failed: ${messageOf(error)}`);
      effect.isError = true;
      effect.result = cut(message);
      record();
      return { status: 502, body: { error: message } };
    }
    effect.isError = result.isError;
    effect.result = cut(ctx.redactor.text(resultText(result)));
    if (verdict.mutating && !result.isError) {
      const derived = deriveInverse(server.api, toolName, args as Record<string, unknown>, result);
      if (derived && 'nothingChanged' in derived) effect.mutating = false;
      else if (derived) effect.inverse = { ...derived.inverse, arguments: redactValue(derived.inverse.arguments, ctx.redactor) as Record<string, unknown>, summary: ctx.redactor.text(derived.inverse.summary) };
    }
    record();
    const limit = Math.min(RESULT_BYTES, ctx.limits?.responseBytes ?? RESULT_BYTES);
    return { status: 200, body: redactValue(bound(result, limit), ctx.redactor) as object };
  }

  private loadAjv(): Promise<{ ajv: Ajv; ajv2020: Ajv }> {
    return (this.ajvs ??= Promise.all([import('ajv'), import('ajv/dist/2020.js')]).then(([draft7, draft2020]) => {
      const options = { strict: false, allErrors: true, validateSchema: false, validateFormats: false };
      return { ajv: new draft7.default(options), ajv2020: new draft2020.default(options) };
    }));
  }

  /** Why the arguments do not fit the tool's schema, in words; null when they do (or the schema cannot be read). */
  private check(ajvs: { ajv: Ajv; ajv2020: Ajv }, tool: McpToolView, args: unknown): string | null {
    let validate = this.validators.get(tool.inputSchema);
    if (validate === undefined) {
      const { $schema, ...schema } = tool.inputSchema;
      const ajv = typeof $schema === 'string' && /2020-12|2019-09/.test($schema) ? ajvs.ajv2020 : ajvs.ajv;
      try {
        validate = ajv.compile(schema);
        // Ajv keeps every schema it compiled; ours live as long as the tool listing (the WeakMap above).
        ajv.removeSchema(schema);
      } catch {
        // A schema ajv cannot compile is the server's to check: the call goes to it.
        validate = null;
      }
      this.validators.set(tool.inputSchema, validate);
    }
    if (!validate || validate(args)) return null;
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => {
        const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'the arguments';
        if (e.keyword === 'required') return `${where} lack "${String((e.params as { missingProperty?: string }).missingProperty)}"`;
        if (e.keyword === 'additionalProperties') return `${where} have "${String((e.params as { additionalProperty?: string }).additionalProperty)}", which the tool does not take`;
        return `${where} ${e.message ?? 'is not valid'}`;
      })
      .join('; ');
  }
}

function notGranted(name: string, granted: readonly string[]): string {
  return `The MCP server "${name}" is not granted to this task, so nothing was sent. Granted: ${granted.length ? granted.join(', ') : 'none'}. Only the person can grant a server (posthoc run --mcp ${name}, or in the app).`;
}

/** Head and tail of a long text, with how long it was. */
export function cut(text: string, max = EFFECT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}… (${text.length} characters) …${text.slice(-tail)}`;
}

/** The answer as the card shows it: the structured value, else each content item in words. */
export function resultText(result: ToolResult): string {
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return result.content
    .map((item) => {
      const c = item as { type?: string; text?: string; data?: string; mimeType?: string; uri?: string; resource?: { uri?: string; text?: string; blob?: string } };
      if (c.type === 'text') return c.text ?? '';
      if (c.type === 'image' || c.type === 'audio') return `[${c.type} ${c.mimeType ?? ''}, ${Math.floor(((c.data ?? '').length * 3) / 4)} bytes]`;
      if (c.type === 'resource') return c.resource?.text !== undefined ? `[resource ${c.resource.uri ?? ''}] ${c.resource.text}` : `[resource ${c.resource?.uri ?? ''}]`;
      if (c.type === 'resource_link') return `[link ${c.uri ?? ''}]`;
      return `[${String(c.type)}]`;
    })
    .join('\n');
}

/** The answer cut to `limit` bytes of JSON, with a note saying so; small answers pass whole. */
export function bound(result: ToolResult, limit: number): ToolResult & { truncated?: string } {
  const size = Buffer.byteLength(JSON.stringify(result));
  if (size <= limit) return result;
  const note = `Posthoc cut this answer: it was ${size} bytes, over the ${limit} bytes the gateway passes to the sandbox. Ask the tool for less (a page, a range, a smaller file).`;
  let budget = limit - 2048;
  let structuredContent = result.structuredContent;
  if (structuredContent !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(structuredContent));
    if (bytes > budget / 2) structuredContent = undefined;
    else budget -= bytes;
  }
  const content: unknown[] = [];
  let dropped = 0;
  for (const item of result.content) {
    const c = item as { type?: string; text?: string; data?: string };
    const bytes = Buffer.byteLength(JSON.stringify(item));
    if (bytes <= budget) {
      content.push(item);
      budget -= bytes;
    } else if (c.type === 'text' && typeof c.text === 'string' && budget > 256) {
      const keep = cutBytes(c.text, budget - 256);
      content.push({ ...c, text: `${keep}… (cut: ${c.text.length} characters in all)` });
      budget = 0;
    } else {
      dropped++;
    }
  }
  if (dropped > 0) content.push({ type: 'text', text: `(${dropped} more ${dropped === 1 ? 'item was' : 'items were'} cut)` });
  content.push({ type: 'text', text: note });
  return { content, ...(structuredContent !== undefined ? { structuredContent } : {}), isError: result.isError, truncated: note };
}

/** The longest prefix of `text` whose JSON encoding fits in `bytes`. */
function cutBytes(text: string, bytes: number): string {
  let lo = 0;
  let hi = Math.min(text.length, bytes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (Buffer.byteLength(JSON.stringify(text.slice(0, mid))) <= bytes) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

/** Every string in the value (keys too) with secrets redacted; the same value when it holds none. */
function redactValue(value: unknown, redactor: { text(input: string): string }): unknown {
  const text = JSON.stringify(value);
  if (text === undefined || redactor.text(text) === text) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactor.text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactor.text(k), walk(x)]));
    return v;
  };
  return walk(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
