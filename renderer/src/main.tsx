// Renderer entry: make sure window.posthoc exists (preload in Electron, the web bridge in a browser), then render.
import './zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { installWebBridge } from './bridge/web-bridge';
import { App } from './components/app';
import { applyTheme, readThemeChoice } from './state/theme';
import './styles.css';

installWebBridge();
applyTheme(readThemeChoice());

const root = document.getElementById('root');
if (root === null) throw new Error('Posthoc: the page has no #root element.');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
