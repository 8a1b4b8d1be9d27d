// One message of the conversation. Assistant text is LLM output: it is only ever rendered as text.
import { assertNever, type Message } from '../../../shared/domain';
import { splitFences } from '../model/conversation';

/** Prose and fenced code as text. Code the agent ran is folded away: its action card shows it. */
export function AssistantText({ text, foldActionCode }: { text: string; foldActionCode: boolean }) {
  return (
    <div className="assistant-text">
      {splitFences(text).map((segment, index) => {
        if (segment.kind === 'prose') {
          return (
            <div key={index} className="message-text">
              {segment.text}
            </div>
          );
        }
        if (segment.kind === 'reasoning') {
          return (
            <details key={index} className="message-code-fold message-reasoning" data-testid="message-reasoning">
              <summary>Reasoning</summary>
              <pre className="message-code">{segment.text}</pre>
            </details>
          );
        }
        if (segment.isAction && foldActionCode) {
          return (
            <details key={index} className="message-code-fold">
              <summary>{segment.tag} code (see the action card)</summary>
              <pre className="message-code">{segment.text}</pre>
            </details>
          );
        }
        return (
          <pre key={index} className="message-code">
            {segment.text}
          </pre>
        );
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
