// The calls an action made to services through the gateway, refused ones included.
import type { ServiceCall } from '../model/action-summary';

export function ServiceCalls({ calls }: { calls: ServiceCall[] }) {
  if (calls.length === 0) return null;
  return (
    <div className="service-calls" data-testid="service-calls">
      <div className="section-label">Service calls</div>
      <ul>
        {calls.map((call, i) => (
          <li key={i} data-refused={call.refused !== null} data-mutating={call.mutating}>
            <code>
              {call.method} svc/{call.service}
              {call.path}
            </code>{' '}
            {call.refused !== null ? (
              <span className="call-refused">refused ({call.status}): {call.refused}</span>
            ) : (
              <span className={call.status < 400 ? 'call-ok' : 'call-error'}>HTTP {call.status}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
