// Google (Gmail): a desktop-app client, offline access for a refresh token, the Gmail API.
import type { ProviderSpec } from '../provider-spec';

export const google: ProviderSpec = {
  id: 'google',
  displayName: 'Google (Gmail)',
  about: 'Write Gmail drafts, label, archive and trash mail. Undo deletes its drafts, puts labels back and takes mail out of the trash; a sent mail cannot be taken back.',
  setupUrl: 'https://console.cloud.google.com/apis/credentials',
  authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
  scopes: ['openid', 'email', 'https://www.googleapis.com/auth/gmail.compose', 'https://www.googleapis.com/auth/gmail.modify'],
  pkce: true,
  clientSecret: 'required',
  tokenAuth: 'post',
  authParams: { access_type: 'offline', prompt: 'consent' },
  revocation: { style: 'rfc7009', url: 'https://oauth2.googleapis.com/revoke' },
  account: { style: 'userinfo', fields: ['email', 'sub'] },
  apis: [
    {
      id: 'gmail',
      title: 'Gmail API',
      baseUrl: 'https://gmail.googleapis.com',
      inverses: [
        {
          match: { method: 'POST', path: '/gmail/v1/users/:user/drafts' },
          inverse: { method: 'DELETE', path: '/gmail/v1/users/{path.user}/drafts/{response.id}' },
          summary: 'Delete the draft {response.id}',
        },
        {
          match: { method: 'POST', path: '/gmail/v1/users/:user/messages/:id/modify' },
          inverse: {
            method: 'POST',
            path: '/gmail/v1/users/{path.user}/messages/{path.id}/modify',
            body: { addLabelIds: '{request.removeLabelIds?}', removeLabelIds: '{request.addLabelIds?}' },
          },
          summary: 'Put the labels of message {path.id} back',
        },
        {
          match: { method: 'POST', path: '/gmail/v1/users/:user/threads/:id/modify' },
          inverse: {
            method: 'POST',
            path: '/gmail/v1/users/{path.user}/threads/{path.id}/modify',
            body: { addLabelIds: '{request.removeLabelIds?}', removeLabelIds: '{request.addLabelIds?}' },
          },
          summary: 'Put the labels of thread {path.id} back',
        },
        {
          match: { method: 'POST', path: '/gmail/v1/users/:user/labels' },
          inverse: { method: 'DELETE', path: '/gmail/v1/users/{path.user}/labels/{response.id}' },
          summary: 'Delete the label "{response.name}"',
        },
        {
          match: { method: 'POST', path: '/gmail/v1/users/:user/messages/:id/trash' },
          inverse: { method: 'POST', path: '/gmail/v1/users/{path.user}/messages/{path.id}/untrash' },
          summary: 'Take message {path.id} out of the trash',
        },
      ],
      // A sent mail cannot be unsent: these wait out the hold window first.
      sends: [
        { method: 'POST', path: '/gmail/v1/users/*/messages/send' },
        { method: 'POST', path: '/gmail/v1/users/*/drafts/send' },
        { method: 'POST', path: '/upload/gmail/v1/users/*/messages/send' },
      ],
      reads: [],
    },
  ],
};
