// Anthropic's native Messages API through the official SDK (@anthropic-ai/sdk), behind LlmClient: the
// loop's messages become Anthropic's (the system prompt apart, tool results as user turns of tool_result
// blocks, the run_code tool as a tool with an input schema), and its stream becomes the same Part an
// OpenAI-compatible reply gives: text and thinking deltas, tool_use blocks with their JSON input streamed in
// pieces, a stop reason, and usage (input tokens from message_start, output tokens from message_delta).
// Retries, continuations, usage and errors in words stay in LlmClient: one door to every provider.
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, LlmEvents, LlmFinish, LlmUsage, ToolCall } from './llm-client';

export type WirePart = { text: string; reasoning: string; toolCalls: ToolCall[]; finish: LlmFinish | null; usage: LlmUsage | null; brokeWith: unknown };

/** The one tool as Anthropic takes it (the same name, description and schema as the OpenAI function). */
export type WireTool = { name: string; description: string; parameters: Record<string, unknown> };

/** Replies may be long: code, then an answer. Anthropic requires a cap; this one every current Claude model takes. */
export const ANTHROPIC_MAX_TOKENS = 8192;

type Block = { type: string; text?: string; thinking?: string; id?: string; name?: string; input?: unknown };
type Param = { role: 'user' | 'assistant'; content: Block[] };

/** The SDK, loaded when an Anthropic provider is first called, not with the services (most runs never use it). */
let sdk: typeof import('@anthropic-ai/sdk') | null = null;

/** The SDK if it was loaded: an error of Anthropic's can exist only then (LlmClient tells its errors by class). */
export function loadedAnthropicSdk(): typeof import('@anthropic-ai/sdk') | null {
  return sdk;
}

export class AnthropicWire {
  private made: Promise<Anthropic> | null = null;

  constructor(private readonly config: { apiKey: string; baseUrl: string | null }) {}

  /** The SDK's client, made on the first call. */
  private client(): Promise<Anthropic> {
    return (this.made ??= import('@anthropic-ai/sdk').then((loaded) => {
      sdk = loaded;
      return new loaded.default({ apiKey: this.config.apiKey, baseURL: this.config.baseUrl ?? undefined, maxRetries: 0, timeout: 10 * 60 * 1000 });
    }));
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const ids: string[] = [];
    for await (const model of (await this.client()).models.list({ limit: 100 }, { signal })) ids.push(model.id);
    return ids.sort();
  }

  /** The provider's entry for one model (its limits among them). */
  async modelEntry(model: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return (await (await this.client()).models.retrieve(model, {}, { signal, maxRetries: 0 })) as unknown as Record<string, unknown>;
  }

  /** One token from the model: Test connection's check that the model answers. */
  async ping(model: string, signal?: AbortSignal): Promise<void> {
    await (await this.client()).messages.create({ model, max_tokens: 1, messages: [{ role: 'user', content: 'Reply with the word ok.' }] }, { signal });
  }

  async call(
    model: string,
    messages: ChatMessage[],
    options: { stream: boolean; tool: WireTool | null; toolCall: (id: string, name: string, args: string) => ToolCall },
    events: LlmEvents,
    signal?: AbortSignal,
  ): Promise<WirePart> {
    const { system, turns } = toAnthropic(messages);
    const body = {
      model,
      max_tokens: ANTHROPIC_MAX_TOKENS,
      messages: turns,
      ...(system ? { system } : {}),
      ...(options.tool ? { tools: [{ name: options.tool.name, description: options.tool.description, input_schema: options.tool.parameters }] } : {}),
    } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    if (!options.stream) {
      const res = await (await this.client()).messages.create(body, { signal });
      let text = '';
      let reasoning = '';
      const calls: ToolCall[] = [];
      for (const block of res.content as Block[]) {
        if (block.type === 'text') text += block.text ?? '';
        else if (block.type === 'thinking') reasoning += block.thinking ?? '';
        else if (block.type === 'tool_use') calls.push(options.toolCall(block.id ?? `call_${calls.length}`, block.name ?? '', JSON.stringify(block.input ?? {})));
      }
      if (reasoning) events.onReasoning?.(reasoning);
      if (text) events.onDelta?.(text);
      return { text, reasoning, toolCalls: calls, finish: finishOf(res.stop_reason), usage: usageOf(res.usage, res.usage), brokeWith: null };
    }
    const stream = await (await this.client()).messages.create({ ...body, stream: true }, { signal });
    let text = '';
    let reasoning = '';
    let finish: LlmFinish | null = null;
    let start: Anthropic.Usage | null = null;
    let end: { output_tokens?: number | null } | null = null;
    const blocks = new Map<number, { kind: 'tool'; id: string; name: string; json: string } | { kind: 'other' }>();
    try {
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            start = event.message.usage;
            break;
          case 'content_block_start': {
            const b = event.content_block as Block;
            blocks.set(event.index, b.type === 'tool_use' ? { kind: 'tool', id: b.id ?? '', name: b.name ?? '', json: '' } : { kind: 'other' });
            if (b.type === 'text' && b.text) {
              text += b.text;
              events.onDelta?.(b.text);
            }
            break;
          }
          case 'content_block_delta': {
            const d = event.delta as { type: string; text?: string; thinking?: string; partial_json?: string };
            if (d.type === 'text_delta' && d.text) {
              text += d.text;
              events.onDelta?.(d.text);
            } else if (d.type === 'thinking_delta' && d.thinking) {
              reasoning += d.thinking;
              events.onReasoning?.(d.thinking);
            } else if (d.type === 'input_json_delta') {
              const b = blocks.get(event.index);
              if (b?.kind === 'tool') b.json += d.partial_json ?? '';
            }
            break;
          }
          case 'message_delta':
            if (event.delta.stop_reason) finish = finishOf(event.delta.stop_reason);
            end = event.usage;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      if (signal?.aborted) throw error;
      return { text, reasoning, toolCalls: [], finish: null, usage: null, brokeWith: error };
    }
    const toolCalls = [...blocks.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([i, b]) => (b.kind === 'tool' ? [options.toolCall(b.id || `call_${i}`, b.name, b.json || '{}')] : []));
    return { text, reasoning, toolCalls, finish, usage: start || end ? usageOf(start, end) : null, brokeWith: null };
  }
}

/** The loop's conversation as Anthropic's: system text apart; tool results (and what follows them) in one user turn. */
export function toAnthropic(messages: ChatMessage[]): { system: string; turns: Param[] } {
  const system: string[] = [];
  const turns: Param[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'user') push('user', m.content ? [{ type: 'text', text: m.content }] : []);
    else if (m.role === 'tool') push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content || '(no output)' } as Block]);
    else if (m.role === 'assistant') {
      const blocks: Block[] = m.content.trim() ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: parseInput(c.arguments) });
      push('assistant', blocks);
    }
  }
  // The Messages API starts with a user turn.
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', content: [{ type: 'text', text: '(continue)' }] });
  return { system: system.join('\n\n'), turns };
}

function parseInput(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function finishOf(reason: string | null | undefined): LlmFinish {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

type InputUsage = { input_tokens?: number | null; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null } | null;

/** Prompt tokens: fresh input plus what was written to and read from the prompt cache, all of which the request used. */
function usageOf(input: InputUsage, output: { output_tokens?: number | null } | null): LlmUsage {
  const prompt = (input?.input_tokens ?? 0) + (input?.cache_creation_input_tokens ?? 0) + (input?.cache_read_input_tokens ?? 0);
  return { promptTokens: prompt, completionTokens: output?.output_tokens ?? 0, calls: 1 };
}
