// The one door to the model provider: the openai SDK against any OpenAI-compatible server (OpenAI,
// Ollama, LM Studio, vLLM). Streams text deltas when it can.
//
// One call to reply() is one model turn as the loop sees it, which may be several HTTP calls:
// - faults that pass (429 — honouring Retry-After —, 5xx, a reset connection, a stream cut before its
//   finish_reason) are retried with capped exponential backoff, the partial text discarded (onRetry tells
//   the front end to drop what it showed);
// - a reply cut by the output limit (finish_reason "length") is continued: the partial goes back as the
//   assistant's turn followed by a user turn asking to continue where it stopped, and the parts are joined;
// - faults that do not pass (a refused key, an unknown model, a context too long) throw an LlmError whose
//   message says what to do; the task ends and can be continued after the fix.
// Usage is the provider's own count (stream_options.include_usage when streaming; it arrives in the last
// chunk only), summed over every HTTP call the turn took, with the number of calls. A call the provider
// reports no usage for is estimated (token-estimate.ts) and marked so: every call counts.
// Anthropic speaks its own Messages API (config.api "anthropic", anthropic-wire.ts); everything else here
// (retries, continuations, usage, errors in words) is the same for it.
// The protocol is a setting: "fenced" (code in the reply's text), "tools" (a native tool run_code
// {language, code}, its calls returned in toolCalls) or "auto" (tools, falling back to fenced for good
// when the provider refuses tools).
import type { APIError as AnthropicApiError } from '@anthropic-ai/sdk';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { languageOfTag, type CodeBlock } from '../../shared/codeact/fences';
import { undatedModel, type ProviderApi } from '../../shared/providers/catalog';
import { AnthropicWire, loadedAnthropicSdk } from './anthropic-wire';
import { statedContextWindow } from './context-budget';
import { estimateRequestTokens, estimateTokens } from './token-estimate';

/** A call of the run_code tool as the model made it; `block` is the action it stands for (null with `error`). */
export type ToolCall = {
  id: string;
  /** The language as the model gave it ("python", "bash", "sh", "sql"). */
  language: string;
  code: string;
  /** For sql: the database's name, when the model gave one. */
  database: string | null;
  /** The action to run, or null when the call cannot be one (then `error` says why, to send back as the tool message). */
  block: CodeBlock | null;
  error: string | null;
  /** The tool's name and its arguments as the model sent them (to echo back in the assistant turn). */
  name: string;
  arguments: string;
};

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string };

/** `estimated`: some of the tokens are Posthoc's estimate, the provider having reported none for a call. */
export type LlmUsage = { promptTokens: number; completionTokens: number; calls: number; estimated?: boolean };

export type LlmFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

export type LlmReply = {
  text: string;
  /** What the provider streamed as reasoning (reasoning_content / reasoning deltas): shown folded, never run. */
  reasoning: string;
  toolCalls: ToolCall[];
  finish: LlmFinish;
  /** Summed over every call this turn took (estimated, and marked so, for a call the provider reported none for). */
  usage: LlmUsage | null;
  /** Calls retried after a passing fault, and continuations after "length". */
  retries: number;
  continuations: number;
};

export type LlmProtocol = 'fenced' | 'tools' | 'auto';

export type LlmConfig = {
  apiKey: string;
  baseUrl: string | null;
  model: string;
  stream: boolean;
  protocol?: LlmProtocol;
  /** The provider's API: OpenAI's Chat Completions (default) or Anthropic's Messages. */
  api?: ProviderApi;
  /** The provider's name and where its keys are made, for messages that say what to do. */
  providerName?: string;
  keyUrl?: string;
  /** Retries of one call after a passing fault (default 4). */
  maxRetries?: number;
  /** First backoff delay (default 1000 ms), doubled each retry, capped at retryMaxMs (default 30000 ms; a Retry-After is capped at 60 s). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Continuations after finish_reason "length" (default 3). */
  maxContinuations?: number;
};

export type RetryInfo = { attempt: number; maxRetries: number; delayMs: number; reason: string };

export type LlmEvents = {
  onDelta?(text: string): void;
  onReasoning?(text: string): void;
  /** A passing fault: what was shown of this call is discarded and the call is tried again after delayMs. */
  onRetry?(info: RetryInfo): void;
};

export type LlmErrorKind = 'auth' | 'model' | 'context' | 'rate-limit' | 'server' | 'connection' | 'bad-request' | 'budget' | 'other';

/** What the owner of a client watches on every call, whoever makes it (the loop, a summary): usage, retries, a budget. */
export type LlmMeter = {
  /** Before each model call: a reason to stop (the budget is spent) throws an LlmError of kind "budget" with it. */
  beforeCall?(): string | null;
  /** After each reply, its usage (summed over its calls), when the provider reported any. */
  onUsage?(usage: LlmUsage): void;
  onRetry?(info: RetryInfo): void;
};

export class LlmError extends Error {
  constructor(
    message: string,
    readonly kind: LlmErrorKind = 'other',
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** The one tool, as a name, a description and a JSON schema (each provider's API wraps it its own way). */
const RUN_CODE_FUNCTION = {
  name: 'run_code',
  description:
    'Run code in the sandbox and get its output back. language is python, bash, sh or sql; for sql, database names the granted database (may be left out when one is granted).',
  parameters: {
    type: 'object',
    properties: {
      language: { type: 'string', enum: ['python', 'bash', 'sh', 'sql'] },
      code: { type: 'string', description: 'The code to run.' },
      database: { type: 'string', description: 'For sql only: the granted database to run it against.' },
    },
    required: ['language', 'code'],
  },
};

export const RUN_CODE_TOOL: ChatCompletionTool = { type: 'function', function: RUN_CODE_FUNCTION };

export const CONTINUE_PROMPT = 'Your reply was cut off by the output limit. Continue exactly where it stopped, without repeating anything.';

/** A fault of one call that may pass: retried. */
class PassingFault extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

export class LlmClient {
  private readonly client: OpenAI;
  private readonly anthropic: AnthropicWire | null;
  /** "auto" found the provider refusing tools: fenced from then on. */
  private toolsRefused = false;
  /** The provider refused stream_options (an older server): streamed requests go without it from then on (no usage). */
  private streamOptionsRefused = false;
  meter: LlmMeter = {};

  constructor(readonly config: LlmConfig) {
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseUrl ?? undefined,
      maxRetries: 0,
      timeout: 10 * 60 * 1000,
    });
    this.anthropic = config.api === 'anthropic' ? new AnthropicWire(config) : null;
  }

  /** The protocol this client speaks now ("auto" resolves to tools until the provider refuses them). */
  get protocol(): 'fenced' | 'tools' {
    const p = this.config.protocol ?? 'fenced';
    if (p === 'fenced') return 'fenced';
    if (p === 'auto' && this.toolsRefused) return 'fenced';
    return 'tools';
  }

  /** The reply's text only (the older shape). */
  async complete(messages: ChatMessage[], onDelta: (text: string) => void, signal?: AbortSignal): Promise<string> {
    return (await this.reply(messages, { onDelta }, signal)).text;
  }

  async reply(messages: ChatMessage[], events: LlmEvents = {}, signal?: AbortSignal): Promise<LlmReply> {
    const maxContinuations = this.config.maxContinuations ?? 3;
    let usage: LlmUsage | null = null;
    let text = '';
    let reasoning = '';
    const toolCalls: ToolCall[] = [];
    let retries = 0;
    let continuations = 0;
    let conversation = messages;
    const withMeter: LlmEvents = {
      ...events,
      onRetry: (info) => {
        events.onRetry?.(info);
        this.meter.onRetry?.(info);
      },
    };
    for (;;) {
      const stop = this.meter.beforeCall?.() ?? null;
      if (stop !== null) {
        if (usage) this.meter.onUsage?.(usage);
        throw new LlmError(stop, 'budget');
      }
      let part: Part;
      try {
        part = await this.callWithRetries(conversation, withMeter, signal, () => retries++);
      } catch (error) {
        if (usage) this.meter.onUsage?.(usage);
        throw error;
      }
      usage = addUsage(usage, part.usage ?? estimatedUsage(conversation, part));
      text += part.text;
      reasoning += part.reasoning;
      toolCalls.push(...part.toolCalls);
      if (part.finish !== 'length' || part.toolCalls.length > 0 || continuations >= maxContinuations) {
        if (usage) this.meter.onUsage?.(usage);
        return { text, reasoning, toolCalls, finish: part.finish, usage, retries, continuations };
      }
      continuations++;
      conversation = [...messages, { role: 'assistant', content: text }, { role: 'user', content: CONTINUE_PROMPT }];
    }
  }

  /** The provider's models (GET /models), by id. */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    try {
      if (this.anthropic) return await this.anthropic.listModels(signal);
      const ids: string[] = [];
      for await (const model of this.client.models.list({ signal })) ids.push(model.id);
      return ids.sort();
    } catch (error) {
      if (signal?.aborted) throw error;
      throw this.finalError(error);
    }
  }

  /**
   * The context window the provider states for the configured model (its entry in GET /models), or null when it
   * states none, does not answer within 5 s, or fails: the budget then falls back to the settings and the catalog.
   */
  async contextWindow(signal?: AbortSignal): Promise<number | null> {
    const within = signal ? AbortSignal.any([signal, AbortSignal.timeout(5000)]) : AbortSignal.timeout(5000);
    try {
      if (this.anthropic) return statedContextWindow(await this.anthropic.modelEntry(this.config.model, within));
      for await (const model of this.client.models.list({ signal: within, maxRetries: 0 })) {
        if (model.id === this.config.model) return statedContextWindow(model as unknown as Record<string, unknown>);
      }
      return null;
    } catch {
      return null;
    }
  }

  /**
   * Test connection: lists the provider's models, then, when a model is set, asks it for one token. Answers in
   * plain words what works and what to do; never throws for a provider's fault.
   */
  async check(signal?: AbortSignal, options: { reachOnly?: boolean } = {}): Promise<{ ok: boolean; message: string; models: string[] }> {
    const where = this.where();
    let models: string[] = [];
    let listed = false;
    try {
      models = await this.listModels(signal);
      listed = true;
    } catch (error) {
      const e = error instanceof LlmError ? error : this.finalError(error);
      // Some servers have no model list; the model itself may still answer.
      if (e.kind === 'auth' || e.kind === 'connection') return { ok: false, message: e.message, models: [] };
    }
    // Whether the server answers is all that was asked: no model call, no tokens spent.
    if (options.reachOnly) return { ok: true, message: `${where} answers.`, models };
    const model = this.config.model;
    if (!model) {
      return listed
        ? { ok: true, message: `Connected to ${where}: ${models.length} model${models.length === 1 ? '' : 's'} listed. Choose one.`, models }
        : { ok: false, message: `${where} answered but does not list its models. Type the model's name, then test again.`, models };
    }
    try {
      if (this.anthropic) await this.anthropic.ping(model, signal);
      else
        await this.client.chat.completions.create(
          { model, messages: [{ role: 'user', content: 'Reply with the word ok.' }], max_tokens: 1 },
          { signal, maxRetries: 0 },
        );
    } catch (error) {
      if (signal?.aborted) throw error;
      const e = passingFault(error);
      const message = e ? `${where} is reachable but did not answer the model now (${e.message}). Try again in a moment.` : this.finalError(error).message;
      return { ok: false, message, models };
    }
    const note = listed && !models.some((m) => m === model || undatedModel(m) === undatedModel(model)) ? ` (it is not in the provider's list of ${models.length} models, but it answered)` : '';
    return { ok: true, message: `Connected to ${where}: model "${model}" answered${note}.`, models };
  }

  private async callWithRetries(messages: ChatMessage[], events: LlmEvents, signal: AbortSignal | undefined, counted: () => void): Promise<Part> {
    const maxRetries = this.config.maxRetries ?? 4;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.callOnce(messages, events, signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (this.config.protocol === 'auto' && !this.toolsRefused && refusesTools(error)) {
          this.toolsRefused = true;
          attempt--;
          continue;
        }
        if (this.config.stream && !this.streamOptionsRefused && refusesStreamOptions(error)) {
          this.streamOptionsRefused = true;
          attempt--;
          continue;
        }
        const fault = error instanceof PassingFault ? error : passingFault(error);
        if (!fault) throw this.finalError(error);
        if (attempt >= maxRetries) {
          throw new LlmError(
            `The model provider at ${this.where()} kept failing (${fault.message}) after ${maxRetries} retries. Try again later, or continue the task then.`,
            fault.retryAfterMs !== null ? 'rate-limit' : 'server',
            statusOf(error),
          );
        }
        const base = this.config.retryBaseMs ?? 1000;
        const cap = this.config.retryMaxMs ?? 30_000;
        const delayMs = fault.retryAfterMs !== null ? Math.min(fault.retryAfterMs, 60_000) : Math.min(base * 2 ** attempt, cap);
        counted();
        events.onRetry?.({ attempt: attempt + 1, maxRetries, delayMs, reason: fault.message });
        await sleep(delayMs, signal);
      }
    }
  }

  private async callOnce(messages: ChatMessage[], events: LlmEvents, signal: AbortSignal | undefined): Promise<Part> {
    if (this.anthropic) return this.callAnthropic(this.anthropic, messages, events, signal);
    const tools = this.protocol === 'tools' ? { tools: [RUN_CODE_TOOL] } : {};
    const wire = messages.map(toWire);
    if (!this.config.stream) {
      const res = await this.client.chat.completions.create({ model: this.config.model, messages: wire, ...tools }, { signal });
      const choice = res.choices[0];
      if (!choice) throw new PassingFault('the reply held no choice');
      const text = choice.message?.content ?? '';
      const reasoning = reasoningOf(choice.message as unknown as Record<string, unknown>);
      if (reasoning) events.onReasoning?.(reasoning);
      if (text) events.onDelta?.(text);
      const calls = (choice.message?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [toolCall(c.id, c.function.name, c.function.arguments)] : []));
      return { text, reasoning, toolCalls: calls, finish: finishOf(choice.finish_reason), usage: usageOf(res.usage) };
    }
    const stream = await this.client.chat.completions.create(
      { model: this.config.model, messages: wire, stream: true, ...(this.streamOptionsRefused ? {} : { stream_options: { include_usage: true } }), ...tools },
      { signal },
    );
    let text = '';
    let reasoning = '';
    let finish: LlmFinish | null = null;
    let usage: LlmUsage | null = null;
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    try {
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        if (chunk.usage) usage = usageOf(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        const r = reasoningOf(delta as unknown as Record<string, unknown>);
        if (r) {
          reasoning += r;
          events.onReasoning?.(r);
        }
        if (delta.content) {
          text += delta.content;
          events.onDelta?.(delta.content);
        }
        for (const c of delta.tool_calls ?? []) {
          const entry = calls.get(c.index) ?? { id: '', name: '', arguments: '' };
          if (c.id) entry.id = c.id;
          if (c.function?.name) entry.name += c.function.name;
          if (c.function?.arguments) entry.arguments += c.function.arguments;
          calls.set(c.index, entry);
        }
        if (choice.finish_reason) finish = finishOf(choice.finish_reason);
      }
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new PassingFault(`the stream broke after ${text.length} characters (${messageOf(error)})`);
    }
    if (finish === null) throw new PassingFault(`the stream ended after ${text.length} characters without a finish reason`);
    const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([i, c]) => toolCall(c.id || `call_${i}`, c.name, c.arguments));
    return { text, reasoning, toolCalls, finish, usage };
  }

  private async callAnthropic(wire: AnthropicWire, messages: ChatMessage[], events: LlmEvents, signal: AbortSignal | undefined): Promise<Part> {
    const fn = RUN_CODE_FUNCTION;
    const tool = this.protocol === 'tools' ? { name: fn.name, description: fn.description, parameters: fn.parameters } : null;
    const part = await wire.call(this.config.model, messages, { stream: this.config.stream, tool, toolCall }, events, signal);
    if (part.brokeWith !== null) {
      const fault = passingFault(part.brokeWith);
      if (fault) throw fault;
      if (statusOf(part.brokeWith) !== null) throw part.brokeWith;
      throw new PassingFault(`the stream broke after ${part.text.length} characters (${messageOf(part.brokeWith)})`);
    }
    if (part.finish === null) throw new PassingFault(`the stream ended after ${part.text.length} characters without a stop reason`);
    return { text: part.text, reasoning: part.reasoning, toolCalls: part.toolCalls, finish: part.finish, usage: part.usage };
  }

  /** The provider as messages name it: "Anthropic (https://api.anthropic.com)", a base URL, or the OpenAI API. */
  private where(): string {
    const url = this.config.baseUrl ?? (this.anthropic ? 'https://api.anthropic.com' : null);
    if (this.config.providerName) return url ? `${this.config.providerName} (${url})` : this.config.providerName;
    return url ?? 'the OpenAI API';
  }

  /** A fault that does not pass, in words that say what to do. */
  private finalError(error: unknown): LlmError {
    const where = this.where();
    const model = this.config.model;
    if (error instanceof LlmError) return error;
    if (error instanceof APIConnectionError || isAnthropicConnectionError(error)) {
      return new LlmError(
        `Nothing answered at ${where} (${messageOf(error.cause ?? error)}). Check the URL, and that the server is running (for Ollama: ollama serve).`,
        'connection',
        null,
      );
    }
    const status = statusOf(error);
    const code = codeOf(error);
    const text = messageOf(error);
    if (status === 401 || status === 403)
      return new LlmError(
        this.config.keyUrl
          ? `The model provider at ${where} refused the API key (${status}). Get a key at ${this.config.keyUrl} and save it for this provider in Settings → Model providers, then continue the task.`
          : `The model provider at ${where} refused the API key (${status}). Set a valid key for this provider in Settings (or OPENAI_API_KEY), then continue the task.`,
        'auth',
        status,
      );
    if (code === 'model_not_found' || status === 404)
      return new LlmError(
        `The model provider at ${where} does not know model "${model}" (${status ?? code}). Check the model name (Settings lists the provider's models), then continue the task with that model.`,
        'model',
        status,
      );
    if (code === 'context_length_exceeded' || /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long/i.test(text))
      return new LlmError(
        `The conversation is longer than model "${model}" accepts (context length exceeded). Set a smaller --context-window, choose a model with a larger window, or start a new task; then continue.`,
        'context',
        status,
      );
    if (status === 400) return new LlmError(`The model provider at ${where} refused the request (400): ${text}`, 'bad-request', status);
    return new LlmError(`The model provider at ${where} failed: ${text}`, 'other', status);
  }
}

type Part = { text: string; reasoning: string; toolCalls: ToolCall[]; finish: LlmFinish; usage: LlmUsage | null };

function toWire(m: ChatMessage): ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', content: m.content, tool_call_id: m.toolCallId };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
    };
  }
  return { role: m.role, content: m.content };
}

/** Parses one call of run_code; a call that cannot be an action carries an error to send back. */
export function toolCall(id: string, name: string, args: string): ToolCall {
  const base = { id, name, arguments: args, language: '', code: '', database: null as string | null };
  if (name !== 'run_code') return { ...base, block: null, error: `There is no tool named "${name}"; the one tool is run_code {language, code}.` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(args || '{}');
  } catch {
    return { ...base, block: null, error: 'The arguments of run_code were not valid JSON; send {"language": "python", "code": "..."}.' };
  }
  const o = (parsed ?? {}) as Record<string, unknown>;
  const language = typeof o.language === 'string' ? o.language : '';
  const code = typeof o.code === 'string' ? o.code : '';
  const database = typeof o.database === 'string' && o.database ? o.database : null;
  const lang = languageOfTag(language || 'python');
  const call = { ...base, language, code, database };
  if (!lang) return { ...call, block: null, error: `run_code does not run "${language}"; language is python, bash, sh or sql.` };
  if (!code.trim()) return { ...call, block: null, error: 'run_code was called with no code.' };
  const block: CodeBlock = lang === 'sql' ? { language: 'sql', source: code, database } : { language: lang, source: code };
  return { ...call, block, error: null };
}

function reasoningOf(o: Record<string, unknown> | undefined): string {
  if (!o) return '';
  const r = o.reasoning_content ?? o.reasoning;
  return typeof r === 'string' ? r : '';
}

function finishOf(reason: string | null | undefined): LlmFinish {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

/** What a call cost when the provider said nothing: the request and the reply estimated, marked so. */
export function estimatedUsage(request: readonly ChatMessage[], part: { text: string; reasoning: string; toolCalls: ToolCall[] }): LlmUsage {
  const calls = part.toolCalls.reduce((sum, c) => sum + estimateTokens(c.name) + estimateTokens(c.arguments), 0);
  return { promptTokens: estimateRequestTokens(request), completionTokens: estimateTokens(part.text) + estimateTokens(part.reasoning) + calls, calls: 1, estimated: true };
}

function usageOf(u: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): LlmUsage | null {
  if (!u) return null;
  return { promptTokens: u.prompt_tokens ?? 0, completionTokens: u.completion_tokens ?? 0, calls: 1 };
}

export function addUsage(a: LlmUsage | null, b: LlmUsage | null): LlmUsage | null {
  if (!a) return b;
  if (!b) return a;
  const estimated = a.estimated || b.estimated ? { estimated: true } : {};
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, calls: a.calls + b.calls, ...estimated };
}

/** An HTTP error from either SDK (OpenAI's or Anthropic's): both carry status, headers and the body's error. */
function isApiError(error: unknown): error is APIError | AnthropicApiError {
  return error instanceof APIError || isAnthropicApiError(error);
}

/** Anthropic's SDK is loaded only when an Anthropic provider is called (anthropic-wire.ts): its errors exist only then. */
function isAnthropicApiError(error: unknown): error is AnthropicApiError {
  const sdk = loadedAnthropicSdk();
  return sdk !== null && error instanceof sdk.APIError;
}

function isAnthropicConnectionError(error: unknown): error is Error & { cause?: unknown } {
  const sdk = loadedAnthropicSdk();
  return sdk !== null && error instanceof sdk.APIConnectionError;
}

function statusOf(error: unknown): number | null {
  return isApiError(error) && typeof error.status === 'number' ? error.status : null;
}

function codeOf(error: unknown): string | null {
  if (isAnthropicApiError(error)) {
    const type = (error.error as { error?: { type?: unknown } } | undefined)?.error?.type;
    return typeof type === 'string' ? type : null;
  }
  if (!(error instanceof APIError)) return null;
  const code = error.code ?? (error.error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A provider that does not take tools answers 400 (or 404/422) saying so. */
function refusesTools(error: unknown): boolean {
  const status = statusOf(error);
  return (status === 400 || status === 404 || status === 422) && /tool|function/i.test(messageOf(error)) && !/context/i.test(messageOf(error));
}

/** An older server answers 400 (or 422) naming the stream_options it does not know. */
function refusesStreamOptions(error: unknown): boolean {
  const status = statusOf(error);
  return (status === 400 || status === 422) && /stream_options|include_usage/i.test(messageOf(error));
}

/** 429, 5xx, 408/409, a refused or reset connection: passes, so retried. Null for faults that do not pass. */
function passingFault(error: unknown): PassingFault | null {
  if (error instanceof APIConnectionError || isAnthropicConnectionError(error)) return new PassingFault(`connection failed: ${messageOf(error.cause ?? error)}`);
  if (isApiError(error)) {
    const status = error.status;
    if (status === 429) return new PassingFault('rate limited (429)', retryAfterMs(error.headers) ?? null);
    if (status === 408 || status === 409 || (typeof status === 'number' && status >= 500)) {
      const after = retryAfterMs(error.headers);
      return new PassingFault(`server error (${status})`, after ?? null);
    }
    return null;
  }
  if (error instanceof TypeError && /terminated|fetch failed|socket|ECONNRESET/i.test(messageOf(error))) return new PassingFault(`connection broke: ${messageOf(error)}`);
  return null;
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms; undefined without one. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
