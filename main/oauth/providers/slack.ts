// Slack: a user token (user_scope) from OAuth v2, the Web API at https://slack.com/api.
import type { ProviderSpec } from '../provider-spec';

export const slack: ProviderSpec = {
  id: 'slack',
  displayName: 'Slack',
  about: 'Post, schedule and react to messages, pin them and create channels. Undo deletes what it posted, removes reactions and pins, and archives channels it made.',
  setupUrl: 'https://api.slack.com/apps',
  authorizationUrl: 'https://slack.com/oauth/v2/authorize',
  tokenUrl: 'https://slack.com/api/oauth.v2.access',
  scopes: ['chat:write', 'channels:read', 'channels:history', 'reactions:write', 'pins:write', 'users:read'],
  scopeParam: 'user_scope',
  scopeSeparator: ',',
  pkce: true,
  clientSecret: 'required',
  tokenAuth: 'basic',
  tokenResponse: { nested: 'authed_user', okField: 'ok' },
  revocation: { style: 'bearer', method: 'POST', url: 'https://slack.com/api/auth.revoke' },
  account: { style: 'api', method: 'POST', url: 'https://slack.com/api/auth.test', fields: ['user', 'user_id'] },
  personalToken: {
    label: 'bot or user token',
    createUrl: 'https://api.slack.com/apps',
    hint: 'Create an app, add the scopes under OAuth & Permissions (chat:write, channels:read, channels:history, reactions:write, pins:write), install it to your workspace, and copy its Bot User OAuth Token (xoxb-…) or User OAuth Token (xoxp-…).',
    secretName: 'slack-token',
    auth: { kind: 'bearer' },
    services: [{ name: 'slack', baseUrl: 'https://slack.com/api', api: 'slack' }],
  },
  apis: [
    {
      id: 'slack',
      title: 'Slack Web API',
      baseUrl: 'https://slack.com/api',
      inverses: [
        {
          match: { method: 'POST', path: '/chat.postMessage' },
          when: { ok: true },
          inverse: { method: 'POST', path: '/chat.delete', body: { channel: '{response.channel}', ts: '{response.ts}' } },
          summary: 'Delete the message {response.ts} in {response.channel}',
        },
        {
          match: { method: 'POST', path: '/chat.scheduleMessage' },
          when: { ok: true },
          inverse: {
            method: 'POST',
            path: '/chat.deleteScheduledMessage',
            body: { channel: '{response.channel}', scheduled_message_id: '{response.scheduled_message_id}' },
          },
          summary: 'Delete the scheduled message {response.scheduled_message_id} in {response.channel}',
        },
        {
          match: { method: 'POST', path: '/reactions.add' },
          when: { ok: true },
          inverse: {
            method: 'POST',
            path: '/reactions.remove',
            body: { channel: '{request.channel}', timestamp: '{request.timestamp}', name: '{request.name}' },
          },
          summary: 'Remove the :{request.name}: reaction from {request.timestamp} in {request.channel}',
        },
        {
          match: { method: 'POST', path: '/pins.add' },
          when: { ok: true },
          inverse: { method: 'POST', path: '/pins.remove', body: { channel: '{request.channel}', timestamp: '{request.timestamp}' } },
          summary: 'Unpin {request.timestamp} in {request.channel}',
        },
        {
          match: { method: 'POST', path: '/conversations.create' },
          when: { ok: true },
          inverse: { method: 'POST', path: '/conversations.archive', body: { channel: '{response.channel.id}' } },
          summary: 'Archive the new channel {response.channel.name}',
        },
      ],
      sends: [],
      reads: [
        { method: '*', path: '/auth.test' },
        { method: '*', path: '/api.test' },
        { method: '*', path: '/*.list' },
        { method: '*', path: '/*.info' },
        { method: '*', path: '/*.history' },
        { method: '*', path: '/*.replies' },
        { method: '*', path: '/search.*' },
        { method: '*', path: '/users.*' },
      ],
    },
  ],
};
