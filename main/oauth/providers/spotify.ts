// Spotify: PKCE without a client secret, the Web API at https://api.spotify.com/v1.
import type { ProviderSpec } from '../provider-spec';

export const spotify: ProviderSpec = {
  id: 'spotify',
  displayName: 'Spotify',
  about: 'Create playlists, add tracks and save music to the library. Undo removes what it added and unfollows playlists it made.',
  setupUrl: 'https://developer.spotify.com/dashboard',
  authorizationUrl: 'https://accounts.spotify.com/authorize',
  tokenUrl: 'https://accounts.spotify.com/api/token',
  scopes: ['playlist-modify-private', 'playlist-modify-public', 'playlist-read-private', 'user-library-modify', 'user-library-read'],
  pkce: true,
  clientSecret: 'optional',
  tokenAuth: 'basic',
  revocation: { style: 'none', howTo: 'Remove Posthoc at https://www.spotify.com/account/apps/ to revoke its access.' },
  account: { style: 'api', method: 'GET', url: 'https://api.spotify.com/v1/me', fields: ['display_name', 'id'] },
  apis: [
    {
      id: 'spotify',
      title: 'Spotify Web API',
      baseUrl: 'https://api.spotify.com/v1',
      inverses: [
        {
          match: { method: 'POST', path: '/users/:user/playlists' },
          inverse: { method: 'DELETE', path: '/playlists/{response.id}/followers' },
          summary: 'Unfollow (remove) the playlist "{response.name}"',
        },
        {
          match: { method: 'POST', path: '/me/playlists' },
          inverse: { method: 'DELETE', path: '/playlists/{response.id}/followers' },
          summary: 'Unfollow (remove) the playlist "{response.name}"',
        },
        {
          match: { method: 'POST', path: '/playlists/:id/tracks' },
          inverse: { method: 'DELETE', path: '/playlists/{path.id}/tracks', body: { tracks: { $each: 'request.uris', as: { uri: '{item}' } } } },
          summary: 'Remove the added tracks from playlist {path.id}',
        },
        {
          match: { method: 'POST', path: '/playlists/:id/items' },
          inverse: { method: 'DELETE', path: '/playlists/{path.id}/items', body: { tracks: { $each: 'request.uris', as: { uri: '{item}' } } } },
          summary: 'Remove the added items from playlist {path.id}',
        },
        {
          match: { method: 'PUT', path: '/me/tracks' },
          inverse: { method: 'DELETE', path: '/me/tracks', body: { ids: '{request.ids}' } },
          summary: 'Remove the saved tracks from the library',
        },
        {
          match: { method: 'PUT', path: '/playlists/:id/followers' },
          inverse: { method: 'DELETE', path: '/playlists/{path.id}/followers' },
          summary: 'Unfollow playlist {path.id}',
        },
      ],
      sends: [],
      reads: [],
    },
  ],
};
