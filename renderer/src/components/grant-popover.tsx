// One "Add" control of the composer's chip row for a kind offered as a list (services, MCP servers): a
// button that shows the list as ticks under it; Escape or the button closes it and gives focus back.
import { useId, useRef, useState, type ReactNode } from 'react';

export function GrantPopover({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <div
      className="grant-popover"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.preventDefault();
          e.stopPropagation();
          setOpen(false);
          button.current?.focus();
        }
      }}
    >
      <button ref={button} type="button" className="button button-small" aria-expanded={open} aria-controls={`${id}-list`} data-testid={testId} onClick={() => setOpen((o) => !o)}>
        {label}
      </button>
      <div id={`${id}-list`} className="grant-popover-list" hidden={!open}>
        {children}
      </div>
    </div>
  );
}
