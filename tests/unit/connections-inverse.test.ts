// Inverse calls derived from the real request and response by each provider's data: Slack, GitHub,
// Spotify, Dropbox, Gmail, Discord. A failed call, a missing value or an unknown endpoint has no inverse.
import { describe, expect, it } from 'vitest';
import { deriveInverse, type RanCall } from '../../main/gateway/rest-inverse';
import { BUILT_IN_PROVIDERS, apiSpec } from '../../main/oauth/providers';
import { describeReversePlan, partlyUndone, reversePlanOf } from '../../shared/undo/reverse-plan';
import type { RestEffect } from '../../shared/domain';
import { ApiSpec } from '../../shared/domain/connections';

const call = (service: string, method: string, path: string, request: unknown, response: unknown, status = 200, query = ''): RanCall => ({
  service, method, path, query: new URLSearchParams(query), status, request, response,
});
const inv = (api: string, c: RanCall, lookup?: (api: string) => string | null) => deriveInverse(apiSpec(api), c, lookup);

describe('provider data', () => {
  it('is valid data for every built-in provider, with endpoints, scopes and inverse rules', () => {
    expect(BUILT_IN_PROVIDERS.map((p) => p.id)).toEqual(['slack', 'github', 'google', 'spotify', 'dropbox', 'discord']);
    for (const p of BUILT_IN_PROVIDERS) {
      expect(p.authorizationUrl).toMatch(/^https:\/\//);
      expect(p.tokenUrl).toMatch(/^https:\/\//);
      expect(p.scopes.length).toBeGreaterThan(0);
      for (const api of p.apis) expect(() => ApiSpec.parse(api)).not.toThrow();
    }
  });
});

describe('inverse calls', () => {
  it('Slack: chat.postMessage → chat.delete with the channel and ts the answer gave; reactions.add → reactions.remove', () => {
    expect(inv('slack', call('slack', 'POST', '/chat.postMessage', { channel: '#team', text: 'hi' }, { ok: true, channel: 'C1', ts: '17.01' }))).toEqual({
      service: 'slack', method: 'POST', path: '/chat.delete', body: '{"channel":"C1","ts":"17.01"}', summary: 'Delete the message 17.01 in C1',
    });
    expect(inv('slack', call('slack', 'POST', '/chat.postMessage', { channel: '#team' }, { ok: false, error: 'not_in_channel' }))).toBeNull();
    expect(inv('slack', call('slack', 'POST', '/reactions.add', { channel: 'C1', timestamp: '17.01', name: 'tada' }, { ok: true }))).toMatchObject({
      path: '/reactions.remove', body: '{"channel":"C1","timestamp":"17.01","name":"tada"}',
    });
  });

  it('GitHub: new issue → close it; new comment → delete it; a failed call has no inverse', () => {
    expect(inv('github', call('gh', 'POST', '/repos/ada/app/issues', { title: 't' }, { number: 42 }, 201))).toMatchObject({
      method: 'PATCH', path: '/repos/ada/app/issues/42', body: '{"state":"closed","state_reason":"not_planned"}',
    });
    expect(inv('github', call('gh', 'POST', '/repos/ada/app/issues/42/comments', { body: 'x' }, { id: 7 }, 201))).toMatchObject({
      method: 'DELETE', path: '/repos/ada/app/issues/comments/7', body: null,
    });
    expect(inv('github', call('gh', 'POST', '/repos/ada/app/issues', { title: 't' }, { message: 'Validation Failed' }, 422))).toBeNull();
    expect(inv('github', call('gh', 'POST', '/repos/ada/app/git/refs', { ref: 'refs/heads/x' }, { ref: 'refs/heads/feat/x' }, 201))!.path).toBe(
      '/repos/ada/app/git/refs/heads/feat/x',
    );
    expect(inv('github', call('gh', 'POST', '/repos/ada/app/git/refs', {}, { ref: 'refs/../../x' }, 201))).toBeNull();
  });

  it('Spotify: create playlist → unfollow it; add tracks → remove exactly those', () => {
    expect(inv('spotify', call('sp', 'POST', '/users/ada/playlists', { name: 'Mix' }, { id: 'pl1', name: 'Mix' }, 201))).toMatchObject({
      method: 'DELETE', path: '/playlists/pl1/followers',
    });
    expect(inv('spotify', call('sp', 'POST', '/playlists/pl1/tracks', { uris: ['spotify:track:a', 'spotify:track:b'] }, { snapshot_id: 's' }, 201))).toMatchObject({
      method: 'DELETE', path: '/playlists/pl1/tracks', body: '{"tracks":[{"uri":"spotify:track:a"},{"uri":"spotify:track:b"}]}',
    });
    // Tracks given in the query string instead: not read, so no inverse is claimed.
    expect(inv('spotify', call('sp', 'POST', '/playlists/pl1/tracks', null, { snapshot_id: 's' }, 201, 'uris=spotify:track:a'))).toBeNull();
  });

  it('Dropbox: create folder → delete it; an upload is deleted through the API host', () => {
    expect(inv('dropbox', call('dropbox', 'POST', '/2/files/create_folder_v2', { path: '/New' }, { metadata: { id: 'id:abc', path_display: '/New' } }))).toMatchObject({
      service: 'dropbox', path: '/2/files/delete_v2', body: '{"path":"id:abc"}',
    });
    const upload = call('dropbox-content', 'POST', '/2/files/upload', null, { id: 'id:f1', path_display: '/a.txt' });
    expect(inv('dropbox-content', upload, (api) => (api === 'dropbox' ? 'dropbox' : null))).toMatchObject({ service: 'dropbox', path: '/2/files/delete_v2', body: '{"path":"id:f1"}' });
    expect(inv('dropbox-content', upload, () => null)).toBeNull();
  });

  it('Gmail: create draft → delete it; add label → remove it (and put back what was removed)', () => {
    expect(inv('gmail', call('gmail', 'POST', '/gmail/v1/users/me/drafts', { message: { raw: 'x' } }, { id: 'd1' }))).toMatchObject({
      method: 'DELETE', path: '/gmail/v1/users/me/drafts/d1',
    });
    expect(inv('gmail', call('gmail', 'POST', '/gmail/v1/users/me/messages/m1/modify', { addLabelIds: ['L1'] }, { id: 'm1' }))!.body).toBe('{"removeLabelIds":["L1"]}');
    expect(inv('gmail', call('gmail', 'POST', '/gmail/v1/users/me/messages/m1/modify', { addLabelIds: ['L1'], removeLabelIds: ['INBOX'] }, { id: 'm1' }))!.body).toBe(
      '{"addLabelIds":["INBOX"],"removeLabelIds":["L1"]}',
    );
    expect(inv('gmail', call('gmail', 'POST', '/gmail/v1/users/me/messages/send', { raw: 'x' }, { id: 'm2' }))).toBeNull();
  });

  it('Discord: a message → delete it', () => {
    expect(inv('discord', call('discord', 'POST', '/channels/123/messages', { content: 'hi' }, { id: '999' }))).toMatchObject({
      method: 'DELETE', path: '/channels/123/messages/999',
    });
  });
});

describe('the reverse plan of service calls', () => {
  const effect = (over: Partial<RestEffect>): RestEffect => ({
    channel: 'rest', service: 'slack', method: 'POST', path: '/chat.postMessage', status: 200, durationMs: 1, requestBytes: 1, responseBytes: 1,
    mutating: true, refused: null, ...over,
  });
  it('lists the exact inverse calls newest first, and names what cannot be undone', () => {
    const a = effect({ inverse: { service: 'slack', method: 'POST', path: '/chat.delete', body: '{}', summary: 'Delete A' } });
    const b = effect({ service: 'github', path: '/repos/a/b/issues', inverse: { service: 'github', method: 'PATCH', path: '/repos/a/b/issues/1', body: '{}', summary: 'Close #1' } });
    const c = effect({ path: '/chat.update' });
    const plan = reversePlanOf({ kind: 'code', status: 'done', output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false }, effects: [a, b, c, effect({ refused: 'no' })] });
    expect(plan.steps.map((s) => (s.channel === 'rest' ? s.summary : ''))).toEqual(['Close #1', 'Delete A']);
    expect(plan.irreversible).toEqual([{ channel: 'rest', name: 'POST svc/slack/chat.update' }]);
    expect(describeReversePlan(plan)).toBe(
      'Send PATCH svc/github/repos/a/b/issues/1 (Close #1), then POST svc/slack/chat.delete (Delete A). POST svc/slack/chat.update cannot be undone (no known inverse).',
    );
  });

  it('after a partial undo: the call taken back is not sent again, the plan names it, and the action is partly undone until undone whole', () => {
    const output = { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false };
    const a = effect({ inverse: { service: 'slack', method: 'POST', path: '/chat.delete', body: '{}', summary: 'Delete A' } });
    const b = effect({ service: 'github', path: '/repos/a/b/issues', inverse: { service: 'github', method: 'PATCH', path: '/repos/a/b/issues/1', body: '{}', summary: 'Close #1' } });
    // The undo sent b's inverse (newest first) and it went through; Slack then refused a's.
    const sentB = { ...b, undone: { status: 200, at: '2026-01-01T00:00:00Z', error: null } };
    const refusedA = { ...a, undone: { status: 200, at: '2026-01-01T00:00:01Z', error: 'cant_delete_message' } };
    const plan = reversePlanOf({ kind: 'code', status: 'done', output, effects: [refusedA, sentB] });
    expect(plan.steps.map((s) => (s.channel === 'rest' ? s.summary : ''))).toEqual(['Delete A']);
    expect(plan.takenBack).toEqual([{ channel: 'rest', name: 'POST svc/github/repos/a/b/issues', summary: 'Close #1' }]);
    expect(describeReversePlan(plan)).toBe('Send POST svc/slack/chat.delete (Delete A). Already taken back by an earlier undo: POST svc/github/repos/a/b/issues (Close #1).');
    expect(partlyUndone({ status: 'done', reverse: plan })).toBe(true);
    expect(partlyUndone({ status: 'undone', reverse: plan })).toBe(false);
    expect(partlyUndone({ status: 'done', reverse: reversePlanOf({ kind: 'code', status: 'done', output, effects: [a, b] }) })).toBe(false);
  });
});
