// Discord: OAuth2 for the person's identity and guilds; posting needs a bot token (an API-key service
// with --auth header:Authorization and a secret "Bot TOKEN"), whose calls these inverse rules also cover.
import type { ProviderSpec } from '../provider-spec';

export const discord: ProviderSpec = {
  id: 'discord',
  displayName: 'Discord',
  about: 'Post messages, react, pin and create channels. Undo deletes its messages and channels and removes its reactions and pins.',
  setupUrl: 'https://discord.com/developers/applications',
  authorizationUrl: 'https://discord.com/oauth2/authorize',
  tokenUrl: 'https://discord.com/api/oauth2/token',
  scopes: ['identify', 'guilds'],
  pkce: true,
  clientSecret: 'required',
  tokenAuth: 'basic',
  revocation: { style: 'rfc7009', url: 'https://discord.com/api/oauth2/token/revoke' },
  account: { style: 'api', method: 'GET', url: 'https://discord.com/api/v10/users/@me', fields: ['username', 'id'] },
  personalToken: {
    label: 'bot token',
    createUrl: 'https://discord.com/developers/applications',
    hint: 'Create an application, add a Bot, copy its token, and invite the bot to your server with the permissions it needs.',
    secretName: 'discord-bot',
    auth: { kind: 'header', header: 'Authorization', prefix: 'Bot ' },
    services: [{ name: 'discord', baseUrl: 'https://discord.com/api/v10', api: 'discord' }],
  },
  apis: [
    {
      id: 'discord',
      title: 'Discord API',
      baseUrl: 'https://discord.com/api/v10',
      inverses: [
        {
          match: { method: 'POST', path: '/channels/:channel/messages' },
          inverse: { method: 'DELETE', path: '/channels/{path.channel}/messages/{response.id}' },
          summary: 'Delete message {response.id} in channel {path.channel}',
        },
        {
          match: { method: 'PUT', path: '/channels/:channel/messages/:message/reactions/:emoji/@me' },
          inverse: { method: 'DELETE', path: '/channels/{path.channel}/messages/{path.message}/reactions/{path.emoji}/@me' },
          summary: 'Remove the {path.emoji} reaction from message {path.message}',
        },
        {
          match: { method: 'PUT', path: '/channels/:channel/pins/:message' },
          inverse: { method: 'DELETE', path: '/channels/{path.channel}/pins/{path.message}' },
          summary: 'Unpin message {path.message}',
        },
        {
          match: { method: 'POST', path: '/guilds/:guild/channels' },
          inverse: { method: 'DELETE', path: '/channels/{response.id}' },
          summary: 'Delete the new channel #{response.name}',
        },
      ],
      sends: [],
      reads: [],
    },
  ],
};
