// A modal dialog on the native <dialog> (showModal): focus moves in when it opens, the page behind is inert
// and Tab wraps inside it, Escape or a click on the backdrop closes it, and focus goes back to the control
// that opened it.
import { useEffect, useRef, type ReactNode } from 'react';
import { keepTabInside, restoreFocus } from './focus-trap';

export function ModalDialog({
  className,
  label,
  testId,
  onClose,
  children,
}: {
  className: string;
  label: string;
  testId: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const opener = document.activeElement;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      restoreFocus(opener);
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={`modal-dialog ${className}`}
      aria-label={label}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onKeyDown={(event) => keepTabInside(event, event.currentTarget)}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose(); // the backdrop
      }}
    >
      {children}
    </dialog>
  );
}
