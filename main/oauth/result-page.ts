// The small page the browser shows after signing in. Static text only: the message is escaped.

export function resultPage(ok: boolean, provider: string, message: string): string {
  const title = ok ? `Connected to ${provider}` : `Not connected to ${provider}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)} · Posthoc</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:15vh auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.3rem;color:${ok ? '#1a7f37' : '#cf222e'}}p{color:#59636e}</style></head>
<body><h1 data-ok="${ok}">${escape(title)}</h1><p>${escape(message)}</p></body></html>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
