// Action cards are folded once finished (renderer/src/components/action-card.tsx): tests that read what is
// inside a card open it first, as a person would, through its toggle.
import type { Locator } from 'playwright-core';

/** Opens a folded action card and waits for its expanded part; an open card stays open. */
export async function expandCard(card: Locator): Promise<Locator> {
  if ((await card.getAttribute('data-expanded')) !== 'true') await card.getByTestId('action-toggle').click();
  const body = card.getByTestId('action-body');
  await body.waitFor();
  return body;
}
