// Form handlers shared by the prompt forms: submit on the button, or on Ctrl/Cmd+Enter in the textarea.
import type { FormEvent, KeyboardEvent } from 'react';

export function submitHandlers(submit: () => Promise<void>): {
  onSubmit(event: FormEvent<HTMLFormElement>): void;
  onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>): void;
} {
  return {
    onSubmit(event) {
      event.preventDefault();
      void submit();
    },
    onKeyDown(event) {
      if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
        event.preventDefault();
        void submit();
      }
    },
  };
}
