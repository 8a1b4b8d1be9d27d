// One message of the conversation. Assistant text is LLM output: it is rendered as markdown built into React
// elements (markdown.tsx), never as HTML.
import { assertNever, type Message } from '../../../shared/domain';
import { splitFences } from '../model/conversation';
import { CodeBlock, MarkdownText } from './markdown';

/** Prose as markdown, reasoning folded, and action code: folded away when its action card shows it. */
export function AssistantText({ text, foldActionCode }: { text: string; foldActionCode: boolean }) {
  return (
    <div className="assistant-text">
      {splitFences(text).map((segment, index) => {
        if (segment.kind === 'prose') return <MarkdownText key={index} text={segment.text} />;
        if (segment.kind === 'reasoning') {
          return (
            <details key={index} className="message-code-fold message-reasoning" data-testid="message-reasoning">
              <summary>Reasoning</summary>
              <pre className="message-code">{segment.text}</pre>
            </details>
          );
        }
        if (segment.kind === 'not-run') {
          return (
            <div key={index} className="message-not-run" data-testid="message-not-run">
              {segment.text.trim() !== '' && <CodeBlock code={segment.text} tag={segment.tag} testId="message-not-run-code" />}
              <p className="message-not-run-reason">{segment.reason}</p>
            </div>
          );
        }
        if (foldActionCode) {
          return (
            <details key={index} className="message-code-fold">
              <summary>{segment.tag} code (see the action card)</summary>
              <pre className="message-code">{segment.text}</pre>
            </details>
          );
        }
        return <CodeBlock key={index} code={segment.text} tag={segment.tag} testId="message-action-code" />;
      })}
    </div>
  );
}

export function MessageView({ message }: { message: Message }) {
  switch (message.role) {
    case 'user':
      return (
        <div className="message message-user" data-testid="message" data-role="user" data-message-id={message.id}>
          <div className="message-label">You</div>
          <div className="message-text">{message.content}</div>
        </div>
      );
    case 'assistant':
      return (
        <div className="message message-assistant" data-testid="message" data-role="assistant" data-message-id={message.id}>
          <div className="message-label">Agent</div>
          <AssistantText text={message.content} foldActionCode />
        </div>
      );
    case 'observation':
      // The action cards above show the same facts; this is what the model was told, folded away.
      return (
        <details
          className="message message-observation"
          data-testid="message"
          data-role="observation"
          data-message-id={message.id}
        >
          <summary>What the agent was told</summary>
          <pre className="message-code">{message.content}</pre>
        </details>
      );
    default:
      return assertNever(message.role, 'message role');
  }
}

export function StreamingMessage({ text }: { text: string }) {
  return (
    <div className="message message-assistant is-streaming" data-testid="streaming-text" aria-live="polite">
      <div className="message-label">Agent</div>
      <AssistantText text={text} foldActionCode={false} />
      <span className="cursor" aria-hidden="true" />
    </div>
  );
}
