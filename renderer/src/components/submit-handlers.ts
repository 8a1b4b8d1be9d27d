// Form handlers shared by the prompt forms (the new-task form and the follow-up box): Enter sends,
// Shift+Enter adds a line, Ctrl/Cmd+Enter sends too. Enter while an input method composes (Japanese, Chinese,
// Korean…) confirms the composition and never sends.
import type { FormEvent, KeyboardEvent } from 'react';

/** The hint shown under a prompt box. */
export const SEND_HINT = 'Enter sends · Shift+Enter adds a line';

/** Whether this key press sends the form. */
export function sendsOnKey(event: { key: string; shiftKey: boolean; altKey: boolean; isComposing?: boolean; keyCode?: number }): boolean {
  // keyCode 229: Chromium's key events during composition (isComposing is false on the Enter that ends it in Safari).
  if (event.key !== 'Enter' || event.isComposing === true || event.keyCode === 229) return false;
  return !event.shiftKey && !event.altKey;
}

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
      if (sendsOnKey({ key: event.key, shiftKey: event.shiftKey, altKey: event.altKey, isComposing: event.nativeEvent.isComposing, keyCode: event.keyCode })) {
        event.preventDefault();
        void submit();
      }
    },
  };
}
