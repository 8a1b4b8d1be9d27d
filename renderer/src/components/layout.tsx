// Sidebar on the left; the main pane shows the new-task form, a task, or settings.
import { useAppStore, type View } from '../state/app-store';
import { ConnectionsPage } from './connections-page';
import { NewTaskForm } from './new-task-form';
import { SettingsPage } from './settings-page';
import { Sidebar } from './sidebar';
import { TaskView } from './task-view';

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
  return (
    <div className="layout">
      <Sidebar view={view} />
      <main className="main-pane">
        <MainPane view={view} />
      </main>
    </div>
  );
}
