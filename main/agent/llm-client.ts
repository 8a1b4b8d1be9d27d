// The one door to the model provider: the openai SDK against any OpenAI-compatible server (OpenAI,
// Ollama, LM Studio, vLLM). Streams text deltas when it can.
import OpenAI from 'openai';

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

export type LlmConfig = { apiKey: string; baseUrl: string | null; model: string; stream: boolean };

export class LlmError extends Error {}

export class LlmClient {
  private readonly client: OpenAI;

  constructor(readonly config: LlmConfig) {
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseUrl ?? undefined,
      maxRetries: 2,
      timeout: 10 * 60 * 1000,
    });
  }

  async complete(messages: ChatMessage[], onDelta: (text: string) => void, signal?: AbortSignal): Promise<string> {
    try {
      if (!this.config.stream) {
        const res = await this.client.chat.completions.create({ model: this.config.model, messages }, { signal });
        const text = res.choices[0]?.message?.content ?? '';
        if (text) onDelta(text);
        return text;
      }
      const stream = await this.client.chat.completions.create({ model: this.config.model, messages, stream: true }, { signal });
      let text = '';
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta?.content;
        if (delta) {
          text += delta;
          onDelta(delta);
        }
      }
      return text;
    } catch (error) {
      if (signal?.aborted) throw error;
      const e = error as { status?: number; message?: string };
      const where = this.config.baseUrl ?? 'the OpenAI API';
      if (e.status === 401) throw new LlmError(`The model provider at ${where} refused the API key (401). Set a valid key in Settings or OPENAI_API_KEY.`);
      if (e.status === 404) throw new LlmError(`The model provider at ${where} does not know model "${this.config.model}" (404). Check the model name.`);
      throw new LlmError(`The model provider at ${where} failed: ${e.message ?? String(error)}`);
    }
  }
}
