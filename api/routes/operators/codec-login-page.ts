import { createHash } from 'node:crypto';

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1b1f24; }
label, input, button { display: block; width: 100%; box-sizing: border-box; }
input { font: inherit; padding: .5rem; margin: .25rem 0 1rem; border: 1px solid #8c959f; border-radius: 4px; }
button { font: inherit; padding: .5rem; background: #1f6feb; color: #fff; border: 0; border-radius: 4px; cursor: pointer; }
#status { margin-top: 1rem; min-height: 1.5rem; }
.error { color: #b42318; }
`;

const SCRIPT = `
document.getElementById('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const status = document.getElementById('status');
  const response = await fetch(location.pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: document.getElementById('token').value }),
  });
  status.className = response.ok ? '' : 'error';
  status.textContent = response.ok ? 'Logged in for 8 hours: reload the Temporal Web UI.' : (await response.json()).detail;
});
`;

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page's Content-Security-Policy: its own inline style and script, by hash, and nothing else. */
export const CODEC_LOGIN_CSP = [
  "default-src 'none'",
  `script-src ${hashOf(SCRIPT)}`,
  `style-src ${hashOf(STYLE)}`,
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The operator's log-in page of the codec endpoint: the operator token in, a session cookie out, then
 * back to the Temporal Web UI. Plain HTML with its one style and one script inline, allowed by hash.
 */
export const CODEC_LOGIN_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shopflow: decode workflow payloads</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Decode workflow payloads</h1>
<p>Shopflow encrypts every workflow payload. Log in with the operator token to let the Temporal Web UI show them in plain text
(in the UI's Codec Server settings: this page's address without <code>/login</code>, and "Include cross-origin credentials").</p>
<form id="login">
<label for="token">Operator token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<p id="status" role="status" aria-live="polite"></p>
<script>${SCRIPT}</script>
</body>
</html>
`;
