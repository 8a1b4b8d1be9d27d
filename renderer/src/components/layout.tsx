// Sidebar on the left; the main pane shows the new-task form, a task, or settings. Below 1000 px the sidebar
// is a drawer: the Tasks button opens it (focus moves in, the page behind is inert), Escape or a choice
// closes it and focus goes back to the button.
import { useEffect, useRef, useState } from 'react';
import { useAppStore, type View } from '../state/app-store';
import { useMediaQuery } from '../state/theme';
import { ConnectionsPage } from './connections-page';
import { KeyboardShortcuts } from './keyboard-shortcuts';
import { focusablesIn, keepTabInside } from './focus-trap';
import { NewTaskForm } from './new-task-form';
import { SettingsPage } from './settings-page';
import { Sidebar } from './sidebar';
import { TaskView } from './task-view';

/** Below this width the sidebar becomes a drawer (styles.css has the same number). */
export const DRAWER_QUERY = '(max-width: 999px)';

function MainPane({ view }: { view: View }) {
  switch (view.kind) {
    case 'new-task':
      return <NewTaskForm />;
    case 'task':
      return <TaskView key={view.taskId} taskId={view.taskId} />;
    case 'settings':
      return <SettingsPage />;
    case 'connections':
      return <ConnectionsPage />;
  }
}

export function Layout() {
  const view = useAppStore((s) => s.view);
  const narrow = useMediaQuery(DRAWER_QUERY);
  const [drawerWanted, setDrawerWanted] = useState(false);
  const open = narrow && drawerWanted;
  const toggle = useRef<HTMLButtonElement>(null);
  const drawer = useRef<HTMLDivElement>(null);

  // Focus moves once the page behind is inert (opening) or no longer is (closing).
  const returnFocus = useRef(false);
  useEffect(() => {
    if (open && drawer.current !== null) {
      const current = drawer.current.querySelector<HTMLElement>('[aria-current="page"]');
      (current ?? focusablesIn(drawer.current)[0])?.focus();
    } else if (!open && returnFocus.current) {
      returnFocus.current = false;
      toggle.current?.focus();
    }
  }, [open]);

  function close(): void {
    returnFocus.current = true;
    setDrawerWanted(false);
  }

  return (
    <div className={`layout${narrow ? ' layout-narrow' : ''}${open ? ' drawer-open' : ''}`}>
      <div
        ref={drawer}
        id="sidebar-drawer"
        className="sidebar-slot"
        data-testid="sidebar-drawer"
        data-open={narrow ? String(open) : undefined}
        role={narrow ? 'dialog' : undefined}
        aria-modal={open ? true : undefined}
        aria-label={narrow ? 'Tasks and settings' : undefined}
        inert={narrow && !open}
        onKeyDown={(event) => {
          if (!open || drawer.current === null) return;
          if (event.key === 'Escape') {
            event.stopPropagation();
            close();
          } else keepTabInside(event, drawer.current);
        }}
        onClick={(event) => {
          // Choosing a task, New task, Connections or Settings closes the drawer.
          if (open && event.target instanceof Element && event.target.closest('button') !== null) close();
        }}
      >
        <Sidebar view={view} />
      </div>
      {open && <div className="drawer-backdrop" data-testid="drawer-backdrop" onClick={close} />}
      <div className="main-column" inert={open}>
        {narrow && (
          <div className="narrow-bar">
            <button
              ref={toggle}
              type="button"
              className="button button-small drawer-toggle"
              data-testid="drawer-toggle"
              aria-expanded={open}
              aria-controls="sidebar-drawer"
              onClick={() => setDrawerWanted(true)}
            >
              <span aria-hidden="true">☰</span> Tasks
            </button>
            <span className="narrow-brand">Posthoc</span>
          </div>
        )}
        {/* Keyed by the view's kind: another page starts at its top, not at the last one's scroll position. */}
        <main className="main-pane" key={view.kind}>
          <MainPane view={view} />
        </main>
      </div>
      <KeyboardShortcuts />
    </div>
  );
}
