// What the model reads when a task Posthoc's restart interrupted is continued: that the app restarted,
// which action (if any) was cut short, and the observations of the last reply's actions that never reached
// it (the process ended before it could send them). Recorded as an observation, so the conversation on
// screen and the one the model reads stay the same record.
import type { Action, Message } from '../../shared/domain';
import { describeObservation } from '../agent/agent-loop';

export function resumeNote(messages: readonly Message[], actions: readonly Action[]): string {
  const at = messages.findLastIndex((m) => m.role === 'assistant');
  const reply = at >= 0 ? messages[at]! : null;
  const ran = reply ? actions.filter((a) => a.messageId === reply.id) : [];
  // Observations of the reply's actions that were never recorded: the model never heard how they ended.
  const unreported = at === messages.length - 1 ? ran : [];
  const cut = ran.filter((a) => a.status === 'interrupted' || a.status === 'running');
  const lines = [
    'Posthoc restarted while you worked on this task, and the person asked to continue it.',
    cut.length > 0
      ? `Action ${cut.map((a) => a.seq).join(', ')} was cut short by the restart: its processes were ended before it finished. What it changed until then is on the record; check what it left before you run it again.`
      : unreported.length > 0
        ? 'No action was cut short: every action of your last reply ended before the restart.'
        : 'No action was cut short: the restart came while you were writing your reply, which was lost.',
  ];
  for (const action of unreported) lines.push('', describeObservation(action));
  lines.push('', 'Go on from where the task stopped; do not redo what already finished.');
  return lines.join('\n');
}
