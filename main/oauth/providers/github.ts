// GitHub: an OAuth App's user token, the REST API at https://api.github.com.
import type { ProviderSpec } from '../provider-spec';

export const github: ProviderSpec = {
  id: 'github',
  displayName: 'GitHub',
  about: 'Open issues, comment, label, create branches and gists, star repositories. Undo closes the issues it opened and deletes its comments, labels, branches and gists.',
  setupUrl: 'https://github.com/settings/applications/new',
  authorizationUrl: 'https://github.com/login/oauth/authorize',
  tokenUrl: 'https://github.com/login/oauth/access_token',
  // The device flow (RFC 8628): no redirect URI; an OAuth app with "Enable Device Flow" ticked, no client secret needed.
  deviceAuthorizationUrl: 'https://github.com/login/device/code',
  deviceFlowSetting: { name: 'Enable Device Flow', url: 'https://github.com/settings/developers' },
  scopes: ['repo', 'read:user'],
  pkce: true,
  clientSecret: 'required',
  tokenAuth: 'post',
  // GitHub answers token errors (authorization_pending, slow_down, bad_verification_code) with HTTP 200.
  tokenResponse: { errorsWith200: true },
  revocation: {
    style: 'client-basic',
    method: 'DELETE',
    url: 'https://api.github.com/applications/{client_id}/grant',
    howTo: 'Revoke its access at https://github.com/settings/applications (Authorized OAuth Apps).',
  },
  account: { style: 'api', method: 'GET', url: 'https://api.github.com/user', fields: ['login'] },
  personalToken: {
    label: 'fine-grained personal access token',
    createUrl: 'https://github.com/settings/personal-access-tokens/new',
    hint: 'Choose the repositories it may reach and the permissions the agent needs (Issues, Contents, Metadata: read and write).',
    secretName: 'github-token',
    auth: { kind: 'bearer' },
    services: [{ name: 'github', baseUrl: 'https://api.github.com', api: 'github' }],
  },
  apis: [
    {
      id: 'github',
      title: 'GitHub REST API',
      baseUrl: 'https://api.github.com',
      inverses: [
        {
          match: { method: 'POST', path: '/repos/:owner/:repo/issues' },
          inverse: { method: 'PATCH', path: '/repos/{path.owner}/{path.repo}/issues/{response.number}', body: { state: 'closed', state_reason: 'not_planned' } },
          summary: 'Close issue #{response.number} in {path.owner}/{path.repo}',
        },
        {
          match: { method: 'POST', path: '/repos/:owner/:repo/issues/:number/comments' },
          inverse: { method: 'DELETE', path: '/repos/{path.owner}/{path.repo}/issues/comments/{response.id}' },
          summary: 'Delete comment {response.id} on #{path.number} in {path.owner}/{path.repo}',
        },
        {
          match: { method: 'POST', path: '/repos/:owner/:repo/pulls/:number/reviews/:review/comments' },
          inverse: { method: 'DELETE', path: '/repos/{path.owner}/{path.repo}/pulls/comments/{response.id}' },
          summary: 'Delete review comment {response.id}',
        },
        {
          match: { method: 'POST', path: '/repos/:owner/:repo/labels' },
          inverse: { method: 'DELETE', path: '/repos/{path.owner}/{path.repo}/labels/{response.name}' },
          summary: 'Delete the label "{response.name}" in {path.owner}/{path.repo}',
        },
        {
          match: { method: 'POST', path: '/repos/:owner/:repo/git/refs' },
          inverse: { method: 'DELETE', path: '/repos/{path.owner}/{path.repo}/git/{response.ref}' },
          summary: 'Delete {response.ref} in {path.owner}/{path.repo}',
        },
        {
          match: { method: 'PUT', path: '/user/starred/:owner/:repo' },
          inverse: { method: 'DELETE', path: '/user/starred/{path.owner}/{path.repo}' },
          summary: 'Unstar {path.owner}/{path.repo}',
        },
        {
          match: { method: 'POST', path: '/gists' },
          inverse: { method: 'DELETE', path: '/gists/{response.id}' },
          summary: 'Delete the gist {response.id}',
        },
      ],
      sends: [],
      reads: [],
    },
  ],
};
