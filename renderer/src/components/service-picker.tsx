// Which defined services a new task may call through the gateway ($POSTHOC_GATEWAY/svc/NAME/…): the
// composer's "Service" control, a list of ticks; the ticked ones show as chips (new-task-form.tsx).
import { useEffect, useState } from 'react';
import type { ServiceDefinition } from '../../../shared/domain';
import { GrantPopover } from './grant-popover';

export function ServicePicker({ selected, onChange }: { selected: string[]; onChange(next: string[]): void }) {
  const [services, setServices] = useState<ServiceDefinition[] | null>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      void window.posthoc.serviceList({}).then((result) => {
        if (live) setServices(result.ok ? result.value : []);
      });
    load();
    // What the CLI adds meanwhile is offered at once.
    const off = window.posthoc.on('store:changed', load);
    return () => {
      live = false;
      off();
    };
  }, []);

  if (services === null || services.length === 0) return null;
  const toggle = (name: string, on: boolean): void =>
    onChange(on ? [...selected, name] : selected.filter((s) => s !== name));

  return (
    <GrantPopover label="Service" testId="new-task-add-service">
      <fieldset className="grant-popover-fieldset" data-testid="new-task-services">
        <legend>Services the agent may call</legend>
        <p className="field-hint">The sandbox has no network; it reaches only the services ticked here, through Posthoc.</p>
        {services.map((service) => (
          <label key={service.name} className="checkbox-row">
            <input
              type="checkbox"
              data-testid={`new-task-service-${service.name}`}
              checked={selected.includes(service.name)}
              onChange={(e) => toggle(service.name, e.target.checked)}
            />
            <code>{service.name}</code> <span className="muted">{service.baseUrl}</span>
          </label>
        ))}
      </fieldset>
    </GrantPopover>
  );
}
