// The top of the renderer: subscribe to main's events, load what the first screen needs, then show the
// first-run screen until a provider is configured, and the app after that.
import { useEffect } from 'react';
import { appActions, subscribeToEvents, useAppStore } from '../state/app-store';
import { FirstRun } from './first-run';
import { Layout } from './layout';

export function App() {
  const settings = useAppStore((s) => s.system.settings);

  useEffect(() => {
    // Subscribe first, so nothing that happens while loading is missed.
    const unsubscribe = subscribeToEvents(window.posthoc);
    void appActions.loadAll();
    return unsubscribe;
  }, []);

  switch (settings.state) {
    case 'loading':
      return (
        <div className="app-message" data-testid="app-loading">
          Starting Posthoc…
        </div>
      );
    case 'error':
      return (
        <div className="app-message" role="alert" data-testid="app-error">
          <p>Posthoc could not load its settings: {settings.message}</p>
          <button type="button" onClick={() => void appActions.loadAll()}>
            Try again
          </button>
        </div>
      );
    case 'ready':
      return settings.value.configured ? <Layout /> : <FirstRun settings={settings.value} />;
  }
}
