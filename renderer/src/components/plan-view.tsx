// The agent's plan, above the conversation: the checklist its last <plan> tag held (shared/codeact/reply.ts).
// Folded to one line (how far it is and the step under way) so the conversation keeps the height; the
// person opens it for the whole list. Its text is the model's: rendered only as text.
import type { PlanItem } from '../../../shared/domain';

/** `rewound`: the task was rewound since; the heading says so instead of "N of M done" (model/task-state). */
export function PlanView({ plan, rewound = null }: { plan: readonly PlanItem[] | undefined; rewound?: string | null }) {
  if (plan === undefined || plan.length === 0) return null;
  const done = plan.filter((item) => item.done).length;
  const next = plan.find((item) => !item.done);
  return (
    <details className="task-plan" data-testid="task-plan" aria-label="The agent's plan">
      <summary className="task-plan-heading" data-testid="task-plan-summary">
        <span className="task-plan-title">Plan</span>{' '}
        <span className="muted" data-testid="task-plan-state" data-rewound={rewound !== null}>
          {rewound ?? `${done} of ${plan.length} done`}
        </span>
        {next !== undefined && rewound === null && (
          <span className="task-plan-next" data-testid="task-plan-next">
            {' · '}
            {next.text}
          </span>
        )}
      </summary>
      <ul className="task-plan-items">
        {plan.map((item, index) => (
          <li key={index} className={item.done && rewound === null ? 'task-plan-item is-done' : 'task-plan-item'} data-testid="task-plan-item" data-done={item.done}>
            <span aria-hidden="true">{item.done ? '☑' : '☐'}</span> {item.text}
          </li>
        ))}
      </ul>
    </details>
  );
}
