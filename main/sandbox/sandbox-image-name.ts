// The sandbox image's tag, apart from the image builder so that `posthoc --help` can name it without
// loading dockerode.
import pkg from '../../package.json';

export const SANDBOX_IMAGE = `posthoc-sandbox:${pkg.version}`;
