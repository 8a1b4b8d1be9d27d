// window.posthoc is the renderer's only way to reach the main process. Preload provides it in Electron;
// the web bridge provides it in a plain browser. Both have exactly this shape, built from the contract.
import type { PosthocApi } from '../../shared/contract';

declare global {
  interface Window {
    posthoc: PosthocApi;
  }
}

export {};
