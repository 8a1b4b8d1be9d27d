// Dropbox: PKCE with offline access; RPC calls on api.dropboxapi.com, uploads on content.dropboxapi.com.
import type { ProviderSpec } from '../provider-spec';

const reads = ['/2/files/list_folder', '/2/files/list_folder/continue', '/2/files/get_metadata', '/2/files/search_v2', '/2/users/get_current_account', '/2/check/user'];

export const dropbox: ProviderSpec = {
  id: 'dropbox',
  displayName: 'Dropbox',
  about: 'Upload, copy, move and make folders in Dropbox. Undo deletes what it made and moves files back.',
  setupUrl: 'https://www.dropbox.com/developers/apps',
  authorizationUrl: 'https://www.dropbox.com/oauth2/authorize',
  tokenUrl: 'https://api.dropboxapi.com/oauth2/token',
  scopes: ['account_info.read', 'files.metadata.read', 'files.content.read', 'files.content.write'],
  pkce: true,
  clientSecret: 'optional',
  tokenAuth: 'post',
  authParams: { token_access_type: 'offline' },
  revocation: { style: 'bearer', method: 'POST', url: 'https://api.dropboxapi.com/2/auth/token/revoke' },
  account: { style: 'api', method: 'POST', url: 'https://api.dropboxapi.com/2/users/get_current_account', fields: ['email', 'account_id'] },
  personalToken: {
    label: 'generated access token',
    createUrl: 'https://www.dropbox.com/developers/apps',
    hint: 'Create an app, tick the permissions it needs (files.content.write, files.content.read), then Generate access token under OAuth 2. It expires after 4 hours.',
    secretName: 'dropbox-token',
    auth: { kind: 'bearer' },
    services: [
      { name: 'dropbox', baseUrl: 'https://api.dropboxapi.com', api: 'dropbox' },
      { name: 'dropbox-content', baseUrl: 'https://content.dropboxapi.com', api: 'dropbox-content' },
    ],
  },
  apis: [
    {
      id: 'dropbox',
      title: 'Dropbox API',
      baseUrl: 'https://api.dropboxapi.com',
      inverses: [
        {
          match: { method: 'POST', path: '/2/files/create_folder_v2' },
          inverse: { method: 'POST', path: '/2/files/delete_v2', body: { path: '{response.metadata.id}' } },
          summary: 'Delete the new folder {response.metadata.path_display}',
        },
        {
          match: { method: 'POST', path: '/2/files/copy_v2' },
          inverse: { method: 'POST', path: '/2/files/delete_v2', body: { path: '{response.metadata.id}' } },
          summary: 'Delete the copy {response.metadata.path_display}',
        },
        {
          match: { method: 'POST', path: '/2/files/move_v2' },
          inverse: { method: 'POST', path: '/2/files/move_v2', body: { from_path: '{response.metadata.id}', to_path: '{request.from_path}' } },
          summary: 'Move {response.metadata.path_display} back to {request.from_path}',
        },
      ],
      sends: [],
      reads: reads.map((path) => ({ method: 'POST', path })),
    },
    {
      id: 'dropbox-content',
      title: 'Dropbox content API',
      baseUrl: 'https://content.dropboxapi.com',
      inverses: [
        {
          match: { method: 'POST', path: '/2/files/upload' },
          inverse: { method: 'POST', path: '/2/files/delete_v2', body: { path: '{response.id}' }, api: 'dropbox' },
          summary: 'Delete the uploaded file {response.path_display}',
        },
      ],
      sends: [],
      reads: [{ method: 'POST', path: '/2/files/download' }, { method: 'POST', path: '/2/files/get_thumbnail_v2' }],
    },
  ],
};
